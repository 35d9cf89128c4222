import Foundation
import Testing
import TroveBLAS
import TroveTestSupport

@testable import TroveMiniLM
import TroveTestTraits

/// A good cache file: the installed model's own, which loading it writes or checks.
private func goodCache() throws -> String {
    let model = try #require(InstalledModel.model)
    try #require(
        model.weightsLoad != .inMemory, "the installed model's folder \(InstalledModel.folder) cannot be written")
    return WeightsCache.path(folder: InstalledModel.folder, kernel: BLASRuntime.kernel)
}

/// A folder whose model files are links to the installed ones, so the weights cache is written here, not there;
/// with `cache`, a copy of a good cache file is put there first.
private func linkedModelFolder(copySafetensors: Bool = false, cache: Bool = false) throws -> TemporaryDirectory {
    let folder = try TemporaryDirectory()
    if cache { try FileManager.default.copyItem(atPath: try goodCache(), toPath: cachePath(folder)) }
    for file in ModelFolder.files {
        let source = InstalledModel.folder + "/" + file
        let target = folder.path + "/" + file
        if copySafetensors && file == "model.safetensors" {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } else {
            try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: source)
        }
    }
    return folder
}

private func cachePath(_ folder: TemporaryDirectory) -> String {
    WeightsCache.path(folder: folder.path, kernel: BLASRuntime.kernel)
}

/// Flips one byte of `path` at `offset` (from the end when negative).
private func damage(_ path: String, at offset: Int) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    defer { try? handle.close() }
    let size = try handle.seekToEnd()
    let position = offset >= 0 ? UInt64(offset) : size - UInt64(-offset)
    try handle.seek(toOffset: position)
    let byte = try #require(try handle.read(upToCount: 1)?.first)
    try handle.seek(toOffset: position)
    try handle.write(contentsOf: Data([byte ^ 0x5A]))
}

@Suite("Weights cache beside the model", .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason), .offCooperativePool)
struct WeightsCacheTests {
    @Test("vectors of 200 cranfield chunks equal the ones from before the cache")
    func vectorsUnchanged() throws {
        let (texts, expected) = try CranfieldFixture.load()
        try #require(texts.count == 200)
        let folder = try linkedModelFolder(cache: true)
        let model = try MiniLM(folder: folder.path)
        #expect(model.weightsLoad == .mapped)
        // Two workers, as `trove embed` ran when the fixture was made: the same sequences share a batch.
        let vectors = model.embed(texts, threads: 2, precision: .fp32)
        let worst = zip(vectors, expected).map { cosine($0, $1) }.min() ?? 0
        #expect(worst >= 0.999_999, "lowest cosine \(worst)")
        // Re-laid out in memory instead: the very same floats.
        let inMemory = try MiniLM(folder: folder.path, cachesWeights: false)
        #expect(inMemory.weightsLoad == .inMemory)
        let few = Array(texts.prefix(8))
        #expect(inMemory.embed(few, threads: 2, precision: .fp32) == model.embed(few, threads: 2, precision: .fp32))
    }

    @Test("the first load writes a 0600 cache with the model's SHA-256; later loads map it")
    func writtenThenMapped() throws {
        let folder = try linkedModelFolder()
        let first = try MiniLM(folder: folder.path)
        #expect(first.weightsLoad == .rebuilt)
        #expect(first.modelSHA256 == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
        let attributes = try FileManager.default.attributesOfItem(atPath: cachePath(folder))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(attributes[.size] as? Int == WeightsCache.headerSize + 4 * Weights.floatsPerLayer * MiniLM.layerCount)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp.") }
        #expect(leftovers.isEmpty)
        let second = try MiniLM(folder: folder.path)
        #expect(second.weightsLoad == .mapped)
        #expect(second.modelSHA256 == first.modelSHA256)
        let text = ["how does the boundary layer behave behind a swept wing?"]
        #expect(second.embed(text, threads: 1) == first.embed(text, threads: 1))
    }

    /// What is done to a good cache, and the offset of the byte flipped (nil: not a flip).
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case payloadByte = "a flipped byte among the floats"
        case lastByte = "a flipped last byte"
        case magic = "a flipped magic number"
        case kernel = "another kernel family in the header"
        case layoutVersion = "another layout version in the header"
        case recordedSize = "another model size in the header"
        case truncated = "a truncated file"
        case extended = "a byte appended"
        case empty = "an empty file"
        var testDescription: String { rawValue }

        /// Damages the cache file at `path` this way (the fp32 cache and the reduced ones share the header).
        func inflict(on path: String) throws {
            switch self {
            case .payloadByte: try damage(path, at: WeightsCache.headerSize + 4 * 1_000_003)
            case .lastByte: try damage(path, at: -1)
            case .magic: try damage(path, at: 0)
            case .kernel: try damage(path, at: 16)
            case .layoutVersion: try damage(path, at: 8)
            case .recordedSize: try damage(path, at: 8 * 16)
            case .truncated: #expect(truncate(path, off_t(WeightsCache.headerSize + 1000)) == 0)
            case .extended:
                let handle = try #require(FileHandle(forUpdatingAtPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data([0]))
                try handle.close()
            case .empty: #expect(truncate(path, 0) == 0)
            }
        }
    }

    @Test("a damaged cache is never used: it is rebuilt and the vectors stay right", arguments: Damage.allCases)
    func damagedIsRebuilt(_ kind: Damage) throws {
        let folder = try linkedModelFolder(cache: true)
        let reference = try #require(InstalledModel.model)
        let path = cachePath(folder)
        try kind.inflict(on: path)
        let reloaded = try MiniLM(folder: folder.path)
        #expect(reloaded.weightsLoad == .rebuilt)
        let text = ["rotate the api key"]
        #expect(reloaded.embed(text, threads: 1) == reference.embed(text, threads: 1))
        #expect(try MiniLM(folder: folder.path).weightsLoad == .mapped)
    }

    @Test("a model file changed since the cache was built makes it stale: rebuilt")
    func staleAfterTheModelChanges() throws {
        let folder = try linkedModelFolder(copySafetensors: true)
        #expect(try MiniLM(folder: folder.path).weightsLoad == .rebuilt)
        #expect(try MiniLM(folder: folder.path).weightsLoad == .mapped)
        // Same bytes, new modification time: the recorded hash can no longer be trusted without hashing again.
        let model = folder.path + "/model.safetensors"
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: model)
        let rebuilt = try MiniLM(folder: folder.path)
        #expect(rebuilt.weightsLoad == .rebuilt)
        #expect(rebuilt.modelSHA256 == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
    }

    @Test("where the cache cannot be written, the weights are re-laid out in memory")
    func unwritable() throws {
        let folder = try linkedModelFolder()
        // A folder in the cache's place: the rename fails (root ignores permission bits, so they cannot be used).
        try FileManager.default.createDirectory(atPath: cachePath(folder), withIntermediateDirectories: false)
        let model = try MiniLM(folder: folder.path)
        #expect(model.weightsLoad == .inMemory)
        #expect(model.embed(["x"], threads: 1)[0].count == 384)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp.") }
        #expect(leftovers.isEmpty)
    }
}

/// The packed bf16, int8 and int16 copies' cache files follow the fp32 copy's rules: written once, then mapped; rebuilt
/// when damaged or stale; in memory where the folder cannot be written. A precision this CPU lacks is a printed SKIP.
@Suite(
    "reduced-precision weights caches beside the model",
    .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason), .offCooperativePool)
struct ReducedWeightsCacheTests {
    static let precisions: [Precision] = [.bf16, .int8, .int16]
    static let texts = [String(repeating: "the boundary layer of a swept wing ", count: 12), "rotate the api key"]

    static func path(_ folder: TemporaryDirectory, _ precision: Precision) -> String {
        WeightsCache.path(folder: folder.path, kernel: ReducedWeights.key(precision, source: FileIdentity()).kernel)
    }

    /// Whether this CPU runs `precision`; prints the skip when not.
    static func runs(_ precision: Precision, _ test: String) -> Bool {
        if !precision.isSupported {
            print("SKIP \(test) (\(precision.rawValue)): this CPU has no \(precision.instructions)")
        }
        return precision.isSupported
    }

    @Test(
        "the first batch writes a 0600 file beside the model (bf16 21.2 MB, int8 7.2 or 14.3 MB, int16 21.3 MB); later loads map it",
        arguments: precisions)
    func writtenThenMapped(_ precision: Precision) throws {
        guard Self.runs(precision, "writtenThenMapped") else { return }
        let folder = try linkedModelFolder()
        let first = try MiniLM(folder: folder.path)
        #expect(first.weightsLoad(precision) == .rebuilt)
        let attributes = try FileManager.default.attributesOfItem(atPath: Self.path(folder, precision))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        // int8's feed-forward matrices are packed (bf16) only where that product runs in bf16.
        let int8 = ReducedWeights.feedForwardBF16 ? 14_303_232 : 7_225_344
        let payload = [Precision.bf16: 2 * 10_616_832, .int8: int8, .int16: 21_316_608][precision]
        #expect(attributes[.size] as? Int == WeightsCache.headerSize + payload!)
        let second = try MiniLM(folder: folder.path)
        #expect(second.weightsLoad(precision) == .mapped)
        let expected = first.embed(Self.texts, threads: 1, precision: precision)
        #expect(second.embed(Self.texts, threads: 1, precision: precision) == expected)
    }

    @Test(
        "a damaged cache is never used: it is rebuilt and the vectors stay right",
        arguments: precisions, WeightsCacheTests.Damage.allCases)
    func damagedIsRebuilt(_ precision: Precision, _ kind: WeightsCacheTests.Damage) throws {
        guard Self.runs(precision, "damagedIsRebuilt") else { return }
        let folder = try linkedModelFolder()
        let reference = try MiniLM(folder: folder.path)
        let expected = reference.embed(Self.texts, threads: 1, precision: precision)
        let path = Self.path(folder, precision)
        try kind.inflict(on: path)
        let reloaded = try MiniLM(folder: folder.path)
        #expect(reloaded.weightsLoad(precision) == .rebuilt)
        #expect(reloaded.embed(Self.texts, threads: 1, precision: precision) == expected)
        #expect(try MiniLM(folder: folder.path).weightsLoad(precision) == .mapped)
    }

    @Test("a model file changed since the cache was built makes it stale: rebuilt", arguments: precisions)
    func staleAfterTheModelChanges(_ precision: Precision) throws {
        guard Self.runs(precision, "staleAfterTheModelChanges") else { return }
        let folder = try linkedModelFolder(copySafetensors: true)
        #expect(try MiniLM(folder: folder.path).weightsLoad(precision) == .rebuilt)
        #expect(try MiniLM(folder: folder.path).weightsLoad(precision) == .mapped)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: folder.path + "/model.safetensors")
        #expect(try MiniLM(folder: folder.path).weightsLoad(precision) == .rebuilt)
    }

    @Test("where the cache cannot be written, the weights are packed in memory", arguments: precisions)
    func unwritable(_ precision: Precision) throws {
        guard Self.runs(precision, "unwritable") else { return }
        let folder = try linkedModelFolder()
        try FileManager.default.createDirectory(atPath: Self.path(folder, precision), withIntermediateDirectories: false)
        let model = try MiniLM(folder: folder.path)
        #expect(model.weightsLoad(precision) == .inMemory)
        #expect(model.embed(Self.texts, threads: 1, precision: precision)[0].count == 384)
    }
}

@Suite("Vocabulary table")
struct VocabularyTests {
    @Test("ids are line numbers; a repeated token keeps its first id; CRLF and a missing final newline are read")
    func lines() {
        let vocabulary = Vocabulary(Array("[PAD]\r\na\nb\na\n##c\r\nd\u{e9}j\u{e0}".utf8))
        #expect(vocabulary.count == 6)
        #expect(vocabulary.id(Array("[PAD]".utf8)) == 0)
        #expect(vocabulary.id(Array("a".utf8)) == 1)
        #expect(vocabulary.id(Array("b".utf8)) == 2)
        #expect(vocabulary.id(Array("##c".utf8)) == 4)
        #expect(vocabulary.id(Array("d\u{e9}j\u{e0}".utf8)) == 5)
        #expect(vocabulary.id(Array("c".utf8)) == nil)
        #expect(vocabulary.id([]) == nil)
        #expect(vocabulary.longestToken == 5)
        #expect(Vocabulary(Array("a\nb\n".utf8)).count == 2)
        #expect(Vocabulary([]).count == 0)
        #expect(Vocabulary([]).id(Array("a".utf8)) == nil)
    }

    @Test(
        "every token of the installed vocab.txt is found under its own id",
        .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason))
    func installed() throws {
        let text = try String(contentsOfFile: InstalledModel.folder + "/vocab.txt", encoding: .utf8)
        let vocabulary = Vocabulary(Array(text.utf8))
        // Bytes, not String keys: String equality is canonical equivalence.
        var firstIDs: [[UInt8]: Int32] = [:]
        let lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        for (index, line) in lines.enumerated() where firstIDs[Array(line)] == nil {
            firstIDs[Array(line)] = Int32(index)
        }
        #expect(vocabulary.count == 30522)
        for (token, id) in firstIDs { #expect(vocabulary.id(token) == id, "\(String(decoding: token, as: UTF8.self))") }
    }
}
