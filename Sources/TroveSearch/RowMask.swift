/// Which rows of a `VectorMatrix` may be returned: a bitset indexed by row position (not id).
package struct RowMask: Sendable, Equatable {
    /// Number of rows the mask covers; must equal the matrix's row count.
    package let count: Int
    // 64 rows per word keeps a million-row mask at 125 KB, and a test is one shift and one AND.
    private var words: [UInt64]

    /// A mask over `count` rows, all allowed or none.
    package init(count: Int, allowingAll: Bool = false) {
        precondition(count >= 0, "mask row count must not be negative")
        self.count = count
        words = Array(repeating: allowingAll ? ~0 : 0, count: (count + 63) / 64)
        if allowingAll, count % 64 != 0 {
            // Clear the bits past `count` so `allowedCount` and equality stay exact.
            words[words.count - 1] = (1 << UInt64(count % 64)) - 1
        }
    }

    /// A mask allowing row `i` exactly when `allowed[i]` is true.
    package init(_ allowed: [Bool]) {
        self.init(count: allowed.count)
        for (row, isAllowed) in allowed.enumerated() where isAllowed {
            self[row] = true
        }
    }

    /// Whether row `row` is allowed.
    package subscript(row: Int) -> Bool {
        @inline(__always) get {
            precondition(row >= 0 && row < count, "row \(row) outside mask of \(count) rows")
            return words[row >> 6] & (1 << UInt64(row & 63)) != 0
        }
        set {
            precondition(row >= 0 && row < count, "row \(row) outside mask of \(count) rows")
            if newValue {
                words[row >> 6] |= 1 << UInt64(row & 63)
            } else {
                words[row >> 6] &= ~(1 << UInt64(row & 63))
            }
        }
    }

    /// Number of allowed rows.
    package var allowedCount: Int {
        words.reduce(0) { $0 + $1.nonzeroBitCount }
    }
}
