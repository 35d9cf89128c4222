import Foundation
import Testing

@testable import TroveMiniLM

/// The installed model, loaded once for every test that needs it; nil when absent.
enum InstalledModel {
    static let folder = ModelFolder.resolve(environment: ProcessInfo.processInfo.environment)
    static let isInstalled = ModelFolder.missingFiles(in: folder).isEmpty
    /// Why model tests are skipped, shown by Swift Testing.
    static let skipReason: Comment = "all-minilm-l6-v2 not installed in \(folder) — run trove models install builtin"
    static let model: MiniLM? = isInstalled ? try? MiniLM(folder: folder) : nil
}

func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return try Data(contentsOf: url)
}

func cosine(_ a: [Float], _ b: [Float]) -> Double {
    var dot = 0.0, na = 0.0, nb = 0.0
    for (x, y) in zip(a, b) {
        dot += Double(x) * Double(y)
        na += Double(x) * Double(x)
        nb += Double(y) * Double(y)
    }
    return dot / (na.squareRoot() * nb.squareRoot())
}

/// Checks an attention head's output, n rows of d floats (row stride ldo, the rest of each row left at `sentinel`),
/// against `expected(i)`: row i's d values, each with how far the kernel may be from it.
func expectHead(
    _ out: [Float], n: Int, d: Int, ldo: Int, sentinel: Float, _ label: String,
    row expected: (Int) -> [(value: Double, bound: Double)]
) {
    for i in 0..<n {
        let row = expected(i)
        for c in 0..<ldo {
            let found = out[i * ldo + c]
            guard c < d else {
                #expect(found == sentinel, "\(label): wrote past the head at \(i), \(c)")
                continue
            }
            #expect(
                abs(Double(found) - row[c].value) <= row[c].bound,
                "\(label) at \(i), \(c): \(found) against \(row[c].value) ± \(row[c].bound)")
        }
    }
}

/// The first 200 cranfield chunks and their vectors from before the weights cache (ac5beaf).
struct CranfieldFixture: Decodable {
    struct Chunk: Decodable {
        var text: String
        var vector: String
    }
    var chunks: [Chunk]

    static func load() throws -> (texts: [String], vectors: [[Float]]) {
        let fixture = try JSONDecoder().decode(CranfieldFixture.self, from: fixture("cranfield-200.json"))
        let vectors = try fixture.chunks.map { chunk in
            let data = try #require(Data(base64Encoded: chunk.vector))
            try #require(data.count == 384 * 4)
            return data.withUnsafeBytes { raw in
                (0..<384).map {
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
                }
            }
        }
        return (fixture.chunks.map(\.text), vectors)
    }
}
