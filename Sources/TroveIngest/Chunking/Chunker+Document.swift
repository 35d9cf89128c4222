extension Chunker {
    /// A document's lines with their estimated tokens and blankness, which sections and packing read.
    struct Document {
        let lines: [Substring]
        let tokens: [Int]
        let blank: [Bool]

        /// Heading and fence rules of one markup.
        enum Syntax {
            case markdown, org, restructuredText, plain
        }

        /// A run of lines kept together when it fits.
        struct Block {
            var lines: ClosedRange<Int>
            /// Code fence or front matter: split only as a last resort, never repeated as overlap.
            var isVerbatim = false
            var isHeading = false
        }

        /// A heading and the blocks up to the next heading.
        struct Section {
            var path: [String]
            var blocks: [Block] = []
        }

        /// A packed piece before trimming.
        struct Piece {
            var lines: ClosedRange<Int>
            var tokens: Int
        }

        init(lines: [Substring]) {
            self.lines = lines
            tokens = lines.map { TokenEstimate.count($0) }
            // Blank: nothing but whitespace, a form feed (a page break in old text and in GNU-style source) or a
            // no-break space included, so no chunk is ever only that. Both tests stop at the first visible character.
            blank = lines.map { line in
                line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0B || $0 == 0x0C }
                    || line.allSatisfy(\.isWhitespace)
            }
        }

        func tokens(_ range: ClosedRange<Int>) -> Int { tokens[range].reduce(0, +) }

        func trimmed(_ range: ClosedRange<Int>) -> ClosedRange<Int>? {
            var low = range.lowerBound
            var high = range.upperBound
            while low <= high && blank[low] { low += 1 }
            while high >= low && blank[high] { high -= 1 }
            return low <= high ? low...high : nil
        }
    }
}
