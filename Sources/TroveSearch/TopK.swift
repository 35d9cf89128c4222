import Dispatch
import Synchronization

/// The best `capacity` rows seen so far, kept in a min-heap whose root is the worst kept row.
///
/// A heap of k costs O(log k) only for rows that beat the current k-th best; every other row is one
/// comparison against `threshold`, so selecting 10 of a million never sorts a million.
struct TopK {
    /// The most rows kept.
    let capacity: Int
    /// Heap-ordered: no child ranks after its parent, so `heap[0]` is the worst kept row.
    private(set) var heap: [ScoredRow] = []

    /// An empty selection keeping at most `capacity` rows; reserve only what the caller can fill.
    init(capacity: Int) {
        self.capacity = Swift.max(0, capacity)
        heap.reserveCapacity(self.capacity)
    }

    /// The score a new row must reach to be considered: `-infinity` until full, `+infinity` if capacity is 0.
    @inline(__always)
    var threshold: Float {
        if heap.count < capacity { return -.infinity }
        return capacity == 0 ? .infinity : heap[0].score
    }

    /// Keeps `row` if it ranks before the worst kept row (or there is room).
    @inline(__always)
    mutating func offer(_ row: ScoredRow) {
        if heap.count < capacity {
            heap.append(row)
            siftUp(heap.count - 1)
        } else if capacity > 0, row.ranks(before: heap[0]) {
            heap[0] = row
            siftDown(0)
        }
    }

    /// Offers each `scores[j]` as row `firstRow + j` (id `ids[j]`), skipping scores below `minScore`,
    /// NaN, and rows `allowed` excludes.
    @inline(__always)
    mutating func offer(
        scores: UnsafeBufferPointer<Float>, ids: UnsafePointer<Int64>, minScore: Float,
        allowed: RowMask? = nil, firstRow: Int = 0
    ) {
        // `bar` folds minScore and the heap threshold into one comparison; `s >= bar` is false for NaN.
        var bar = Swift.max(minScore, threshold)
        if let allowed {
            for j in scores.indices {
                let s = scores[j]
                if s >= bar, allowed[firstRow + j] {
                    offer(ScoredRow(id: ids[j], score: s))
                    bar = Swift.max(minScore, threshold)
                }
            }
        } else {
            for j in scores.indices {
                let s = scores[j]
                if s >= bar {
                    offer(ScoredRow(id: ids[j], score: s))
                    bar = Swift.max(minScore, threshold)
                }
            }
        }
    }

    /// The kept rows, best first.
    func sortedBestFirst() -> [ScoredRow] {
        heap.sorted { $0.ranks(before: $1) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let row = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            // The parent must be the worse of the two; stop once it is.
            guard heap[parent].ranks(before: row) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = row
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let row = heap[parent]
        let count = heap.count
        while true {
            var worst = 2 * parent + 1
            guard worst < count else { break }
            let right = worst + 1
            if right < count, heap[worst].ranks(before: heap[right]) { worst = right }
            guard row.ranks(before: heap[worst]) else { break }
            heap[parent] = heap[worst]
            parent = worst
        }
        heap[parent] = row
    }

    /// The best `capacity` of rows `0..<count`, split into `parts` ranges each selected by `select` on a thread of its
    /// own and merged: the same rows as one pass, because ranking is a total order (score, then id).
    static func merged(rows count: Int, parts: Int, capacity: Int, _ select: @Sendable (Range<Int>) -> TopK) -> TopK {
        guard parts > 1 else { return select(0..<count) }
        let found = Mutex([TopK](repeating: TopK(capacity: 0), count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let top = select((count * part / parts)..<(count * (part + 1) / parts))
            found.withLock { $0[part] = top }
        }
        var top = TopK(capacity: capacity)
        for part in found.withLock({ $0 }) {
            for row in part.heap { top.offer(row) }
        }
        return top
    }
}
