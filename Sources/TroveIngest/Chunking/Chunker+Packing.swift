/// Packing a section's blocks into chunks within the token budget, with overlap between them.
extension Chunker.Document {
    /// A unit: lines that go into a chunk together.
    struct Unit {
        var lines: ClosedRange<Int>
        var tokens: Int
        var overlappable: Bool
        var isHeading: Bool
        var splittable: Bool
    }

    func lineUnits(_ range: ClosedRange<Int>, overlappable: Bool) -> [Unit] {
        range.filter { !blank[$0] }.map {
            Unit(lines: $0...$0, tokens: tokens[$0], overlappable: overlappable, isHeading: false, splittable: false)
        }
    }

    func pack(_ section: Section, budget: Int, overlapBudget: Int) -> [ClosedRange<Int>] {
        var units: [Unit] = []
        for block in section.blocks {
            let count = tokens(block.lines)
            if count <= budget || block.lines.count == 1 {
                units.append(
                    Unit(
                        lines: block.lines, tokens: count, overlappable: !block.isVerbatim, isHeading: block.isHeading,
                        splittable: !block.isVerbatim && block.lines.count > 1))
            } else {
                units += lineUnits(block.lines, overlappable: !block.isVerbatim)
            }
        }
        var overlappable = [Bool](repeating: true, count: 0)
        if let first = units.first, let last = units.last {
            overlappable = [Bool](repeating: true, count: last.lines.upperBound - first.lines.lowerBound + 1)
            for unit in units where !unit.overlappable {
                for line in unit.lines { overlappable[line - first.lines.lowerBound] = false }
            }
        }
        let base = units.first?.lines.lowerBound ?? 0

        var pieces: [ClosedRange<Int>] = []
        var current: Piece?
        var currentIsHeadingOnly = false
        var index = 0
        while index < units.count {
            let unit = units[index]
            guard var piece = current else {
                current = Piece(lines: unit.lines, tokens: unit.tokens)
                currentIsHeadingOnly = unit.isHeading
                index += 1
                continue
            }
            if piece.tokens + unit.tokens <= budget {
                piece.lines = piece.lines.lowerBound...unit.lines.upperBound
                piece.tokens += unit.tokens
                current = piece
                currentIsHeadingOnly = currentIsHeadingOnly && unit.isHeading
                index += 1
                continue
            }
            if currentIsHeadingOnly && unit.splittable {
                // Keep a heading with the start of its text rather than alone: split the paragraph into lines.
                units.replaceSubrange(index...index, with: lineUnits(unit.lines, overlappable: true))
                continue
            }
            pieces.append(piece.lines)
            current = Piece(lines: unit.lines, tokens: unit.tokens)
            currentIsHeadingOnly = unit.isHeading
            if let start = overlapStart(piece, overlappable: overlappable, base: base, budget: overlapBudget) {
                let extra = tokens(start...(piece.lines.upperBound))
                if extra + unit.tokens <= budget {
                    current = Piece(lines: start...unit.lines.upperBound, tokens: extra + unit.tokens)
                    currentIsHeadingOnly = false
                }
            }
            index += 1
        }
        if let current { pieces.append(current.lines) }
        return pieces
    }

    /// The first line of the overlap taken from the end of `piece`: whole lines, at most `budget` tokens, never
    /// verbatim lines, never the whole piece; nil when no line fits.
    func overlapStart(_ piece: Piece, overlappable: [Bool], base: Int, budget: Int) -> Int? {
        guard budget > 0 else { return nil }
        var total = 0
        var start: Int?
        var line = piece.lines.upperBound
        while line > piece.lines.lowerBound {
            guard overlappable[line - base] else { break }
            if !blank[line] {
                guard total + tokens[line] <= budget else { break }
                total += tokens[line]
                start = line
            }
            line -= 1
        }
        return start
    }
}
