import Foundation
import Testing

/// SwiftPM lets a target import any module built before it, so the layering is checked here: front ends reach
/// the store, the ingest code, the encoder and BLAS only through TroveKit.
@Suite("Front ends import TroveKit only")
struct LayeringTests {
    static let forbidden = ["TroveStore", "TroveIngest", "TroveMiniLM", "TroveBLAS", "TroveSearch", "CSQLite"]

    @Test(
        "TroveCLI and TroveMCP import no layer below TroveKit; only TroveCLI imports Ollama (model management)",
        arguments: ["TroveCLI", "TroveMCP"])
    func imports(target: String) throws {
        let folder = repositoryRoot + "/Sources/" + target
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let imports = text.split(separator: "\n").filter {
                $0.hasPrefix("import ") || $0.hasPrefix("@preconcurrency import ")
            }
            .map { $0.split(separator: " ").last.map(String.init) ?? "" }
            for module in imports {
                #expect(!Self.forbidden.contains(module), "\(target)/\(file) imports \(module)")
                if target == "TroveMCP" { #expect(module != "Ollama", "\(file) imports Ollama") }
            }
        }
    }
}
