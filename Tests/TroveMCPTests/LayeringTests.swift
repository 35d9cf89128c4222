import Foundation
import Testing

/// SwiftPM lets a target import any module built before it, so the layering is checked here: front ends and servers
/// reach the store, the ingest code, the encoder and BLAS only through TroveKit; TroveKit knows no printer, server or
/// front end; the ground floor (TroveSystem) knows nothing of ours.
@Suite("Layers import only downward")
struct LayeringTests {
    /// The engine below TroveKit, which front ends and servers reach only through it.
    static let belowKit = [
        "TroveStore", "TroveIngest", "TroveMiniLM", "TroveBLAS", "TroveSearch", "CSQLite", "CPostgres", "CTroveFTS",
        "CTroveGEMM", "CTroveScan", "TroveExtract", "CTroveProcess", "CUchardet", "CLibXML2",
    ]

    /// What each target may not import, and why.
    static let rules: [(target: String, forbidden: [String], why: String)] = [
        ("TroveCLI", belowKit, "a front end reaches the engine through TroveKit"),
        ("TroveMCP", belowKit + ["Ollama", "TroveCLI", "TroveServe", "TroveWeb"], "a server calls TroveKit only"),
        ("TroveWeb", belowKit + ["Ollama", "TroveCLI", "TroveServe"], "a server calls TroveKit (and TroveMCP's tools) only"),
        ("TroveServe", belowKit + ["Ollama", "TroveCLI", "TroveMCP", "TroveWeb"], "a server calls TroveKit only"),
        ("TroveOutput", ["TroveServe", "TroveCLI", "TroveMCP", "TroveWeb"], "the printer sits below the front ends and servers"),
        ("TroveKit", ["TroveServe", "TroveOutput", "TroveCLI", "TroveMCP", "TroveWeb"], "the library knows no terminal or wire"),
    ]

    @Test("no target imports a layer it must not", arguments: rules.map(\.target))
    func imports(target: String) throws {
        let rule = try #require(Self.rules.first { $0.target == target })
        let found = try Self.imports(ofTarget: target)
        #expect(!found.isEmpty)
        for (file, module) in found {
            #expect(!rule.forbidden.contains(module), "\(target)/\(file) imports \(module): \(rule.why)")
        }
    }

    @Test("TroveSystem, the ground floor, imports nothing of ours")
    func groundFloor() throws {
        let ours = Set(try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/Sources"))
        let found = try Self.imports(ofTarget: "TroveSystem")
        for (file, module) in found {
            #expect(!ours.contains(module), "TroveSystem/\(file) imports \(module)")
        }
    }

    @Test(
        "every spelling of an import is read",
        arguments: [
            ("import TroveStore", "TroveStore"), ("@_exported import TroveStore", "TroveStore"),
            ("public import TroveStore", "TroveStore"), ("package import TroveStore", "TroveStore"),
            ("internal import TroveStore", "TroveStore"), ("@testable import TroveStore", "TroveStore"),
            ("@preconcurrency import TroveStore", "TroveStore"), ("@preconcurrency public import TroveStore", "TroveStore"),
            ("import struct TroveStore.SQLiteStore", "TroveStore"), ("  import TroveStore  // why", "TroveStore"),
        ])
    func spellings(line: String, module: String) {
        #expect(Self.importedModule(line) == module)
    }

    @Test("a line that only mentions import is not one", arguments: ["// import TroveStore", "let important = 1", "/// import x"])
    func notImports(line: String) {
        #expect(Self.importedModule(line) == nil)
    }

    /// Every (file, module) a target's Swift files import, in sub-folders too.
    static func imports(ofTarget target: String) throws -> [(String, String)] {
        let folder = repositoryRoot + "/Sources/" + target
        let files = try #require(FileManager.default.subpaths(atPath: folder)).filter { $0.hasSuffix(".swift") }
        return try files.flatMap { file in
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            return text.split(separator: "\n").compactMap { importedModule(String($0)) }.map { (file, $0) }
        }
    }

    /// The module an import declaration names, whatever its attributes (`@_exported`, `@testable`,
    /// `@preconcurrency`), access (`public`, `package`, `internal`, …) or kind (`import struct M.T`); nil otherwise.
    static func importedModule(_ line: String) -> String? {
        var words = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first?
            .split(whereSeparator: \.isWhitespace).map(String.init) ?? []
        let modifiers: Set = ["public", "package", "internal", "fileprivate", "private", "open"]
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words.removeFirst() }
        guard words.first == "import", words.count >= 2 else { return nil }
        let kinds: Set = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var", "actor"]
        let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
        return path.split(separator: ".").first.map(String.init)
    }
}
