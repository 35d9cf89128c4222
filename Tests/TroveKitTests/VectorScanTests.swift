import Foundation
import Ollama
import Testing
import TroveKit
import TroveTestSupport
import TroveTestTraits

/// When a search scans the int8 copy: `.exact` never, `.int8` always, `.automatic` in a warm process from the size
/// threshold on.
@Suite("The int8 scan's decision")
struct AutomaticScanTests {
    @Test(
        "exact and int8 as asked; automatic only warm and from the threshold on",
        arguments: [
            (VectorScan.exact, true, 1_000, false), (.int8, false, 1, true), (.int8, true, 1, true),
            (.automatic, false, 1_000, false), (.automatic, true, 999, false), (.automatic, true, 1_000, true),
        ])
    func decision(scan: VectorScan, warm: Bool, floats: Int, int8: Bool) {
        #expect(AutomaticScan(minimumFloats: 1_000, warm: warm).usesInt8(scan, floats: floats) == int8)
        #expect(AutomaticScan().minimumFloats == AutomaticScan.defaultMinimumFloats)
        #expect(!AutomaticScan().warm)
    }
}

/// The decision through `TroveIndex`, over a real index embedded by the fake Ollama server, with a small threshold
/// injected (the measured one, 30k × 384 floats, is far above what a test indexes).
@Suite("The int8 scan as the default above a size", .offCooperativePool)
struct VectorScanTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    let configuration: TroveConfiguration

    init() async throws {
        server = try FakeOllamaServer()
        folder = try TemporaryDirectory()
        configuration = TroveConfiguration(
            location: .file(folder.path + "/i.sqlite"), ollama: OllamaClient(baseURL: server.baseURL), modelFolder: "/none")
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        for try await _ in try await index.index(IndexOptions(roots: [url.path + "/Corpora"])) {}
    }

    /// The hits' paths and scores, for comparing two scans.
    private func ranked(_ index: TroveIndex, _ request: SearchRequest, _ scan: VectorScan) async throws
        -> [[String]]
    {
        var request = request
        request.scan = scan
        return try await index.search(request).map { [$0.relativePath, "\($0.score)"] }
    }

    @Test("a warm index at or above the threshold builds the copy at warm-up and ranks as the exact scan does")
    func warmAboveThreshold() async throws {
        let index = try TroveIndex(opening: configuration)
        await index.scanInt8(fromFloats: 1)
        try await index.warmUp()
        #expect(await index.holdsInt8Copy())
        var filtered = SearchRequest(query: "rotate the deploy keys", mode: .hybrid, limit: 5)
        filtered.filter.pathGlobs = ["engineering"]
        for request in [SearchRequest(query: "sourdough starter", mode: .vector, limit: 5), filtered] {
            let automatic = try await ranked(index, request, .automatic)
            #expect(!automatic.isEmpty)
            #expect(automatic == (try await ranked(index, request, .exact)))
            #expect(automatic == (try await ranked(index, request, .int8)))
        }
    }

    @Test("after the index changes, a warm index's next search scans exactly and the copy is rebuilt aside")
    func rebuiltAside() async throws {
        let index = try TroveIndex(opening: configuration)
        await index.scanInt8(fromFloats: 1)
        try await index.warmUp()
        #expect(await index.holdsInt8Copy())
        // Another writer adds a folder: the next search reloads the vectors, and with them a copy to build.
        try folder.write("more/tea.md", "# Tea\n\nSteep green tea at 80 degrees for two minutes.\n")
        let writer = try TroveIndex(opening: configuration)
        for try await _ in try await writer.index(IndexOptions(roots: [folder.path + "/more"])) {}
        let request = SearchRequest(query: "green tea temperature", mode: .vector, limit: 5)
        let first = try await ranked(index, request, .automatic)
        #expect(first.first?.first == "tea.md")
        #expect(first == (try await ranked(index, request, .exact)))
        // Built on its own thread, without another search asking.
        let deadline = ContinuousClock.now + .seconds(120)
        while !(await index.holdsInt8Copy()), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await index.holdsInt8Copy(), "the copy was not rebuilt after the index changed")
        #expect(try await ranked(index, request, .automatic) == first)
    }

    @Test("below the threshold, or cold (a one-shot search), the default scans exactly and builds no copy")
    func exactBelowThresholdOrCold() async throws {
        let warm = try TroveIndex(opening: configuration)
        await warm.scanInt8(fromFloats: .max)
        try await warm.warmUp()
        _ = try await warm.search(SearchRequest(query: "sourdough starter", mode: .vector))
        #expect(!(await warm.holdsInt8Copy()))

        let cold = try TroveIndex(opening: configuration)
        await cold.scanInt8(fromFloats: 1)
        _ = try await cold.search(SearchRequest(query: "sourdough starter", mode: .vector))
        #expect(!(await cold.holdsInt8Copy()))
        var forced = SearchRequest(query: "sourdough starter", mode: .vector)
        forced.scan = .int8
        _ = try await cold.search(forced)
        #expect(await cold.holdsInt8Copy(), "--int8 builds the copy in any process")
    }

    @Test("--exact in a warm process above the threshold never builds the copy")
    func exactOptOut() async throws {
        let index = try TroveIndex(opening: configuration)
        await index.scanInt8(fromFloats: .max)
        try await index.warmUp()
        await index.scanInt8(fromFloats: 1)
        var request = SearchRequest(query: "sourdough starter", mode: .hybrid)
        request.scan = .exact
        #expect(!(try await index.search(request)).isEmpty)
        #expect(!(await index.holdsInt8Copy()))
    }
}
