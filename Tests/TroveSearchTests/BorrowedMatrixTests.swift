import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@testable import TroveSearch
import TroveTestTraits

/// A read-only mapping of a temporary file holding `values`, unmapped (and the file removed) on deinit.
private final class MappedFloats: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let length: Int
    var values: UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: length / 4)
    }

    init(_ values: [Float]) throws {
        var template = Array("/tmp/trove-mapped-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        length = values.count * 4
        let written = values.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
        try #require(written == length)
        let raw = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        try #require(raw != nil && raw != MAP_FAILED)
        base = raw!
    }

    deinit { munmap(base, length) }
}

@Suite("A matrix borrowing mapped floats", .offCooperativePool)
struct BorrowedMatrixTests {
    @Test("scores, ranks, batches, quantizes and looks up rows exactly like the owned matrix", arguments: [(1, 4), (300, 385), (20_000, 64)])
    func mappedEqualsOwned(rows: Int, dimension: Int) throws {
        var rng = SplitMix64(seed: UInt64(rows * 31 + dimension))
        var values = [Float]()
        for _ in 0..<rows { values += rng.unitVector(dimension: dimension) }
        let ids = (0..<rows).map { Int64($0) * 3 + 1 }
        let owned = VectorMatrix(dimension: dimension, rowIDs: ids, values: values)
        let mapping = try MappedFloats(values)
        let mapped = VectorMatrix(dimension: dimension, rowIDs: ids, borrowing: mapping.values, owner: mapping)
        #expect(mapped.isBorrowed && !owned.isBorrowed)
        #expect(mapped.values == values)
        mapped.withUnsafeValues { mappedValues in
            owned.withUnsafeValues { ownedValues in #expect(mappedValues.elementsEqual(ownedValues)) }
        }

        let queries = (0..<5).map { _ in rng.unitVector(dimension: dimension) }
        let k = Swift.min(rows, 25)
        for query in queries {
            #expect(
                VectorSearcher(matrix: mapped).search(query: query, k: k)
                    == VectorSearcher(matrix: owned).search(query: query, k: k))
            let mask = owned.mask(allowingIDs: ids.filter { $0 % 2 == 0 })
            #expect(
                VectorSearcher(matrix: mapped).search(query: query, k: k, allowed: mask)
                    == VectorSearcher(matrix: owned).search(query: query, k: k, allowed: mask))
            #expect(
                QuantizedSearcher(matrix: mapped).search(query: query, k: k)
                    == QuantizedSearcher(matrix: owned).search(query: query, k: k))
            for id in [ids[0], ids[rows / 2], ids[rows - 1], 2] {
                #expect(mapped.row(ofID: id) == owned.row(ofID: id))
                #expect(mapped.score(ofID: id, query: query) == owned.score(ofID: id, query: query))
            }
        }
        #expect(
            VectorSearcher(matrix: mapped).search(queries: queries, k: k)
                == VectorSearcher(matrix: owned).search(queries: queries, k: k))
    }

    @Test("a copy of the matrix keeps the mapping alive after the original is gone")
    func keepsOwnerAlive() throws {
        var rng = SplitMix64(seed: 5)
        let values = (0..<8).flatMap { _ in rng.unitVector(dimension: 16) }
        var mapping: MappedFloats? = try MappedFloats(values)
        weak let watched = mapping
        var matrix: VectorMatrix? = VectorMatrix(
            dimension: 16, rowIDs: Array(1...8), borrowing: mapping!.values, owner: mapping!)
        mapping = nil
        let copy = matrix!
        matrix = nil
        #expect(watched != nil)
        #expect(copy.values == values)
    }
}
