import Foundation
import Testing
import TroveTestSupport

@Suite("The trove executable")
struct BinaryTests {
    @Test("index and search through the binary: results on stdout, no progress when piped")
    func indexAndSearch() async throws {
        let server = try rankingServer()
        let folder = try TemporaryDirectory()
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": folder.path + "/i.sqlite"]
        let index = try await runBinary(["index", corpora], environment: environment)
        #expect(index.status == 0, "\(index.error)")
        #expect(index.output.contains(" new, 0 changed, 0 unchanged, 0 removed"))
        #expect(!index.error.contains("\r"), "progress must stay off when stderr is not a terminal")

        let query = try #require(keywordQueries.first)
        let search = try await runBinary(["search", "-n", "2", query.query], environment: environment)
        #expect(search.status == 0)
        #expect(search.output.hasPrefix(displayed(corpora + "/" + query.expected) + ":"))
        #expect(!search.output.contains("\u{1B}["), "no colour when piped")
        #expect(search.error.isEmpty)
    }

    @Test(
        "trove-bench parses like trove: a mistyped flag or a bad value is an error (exit 64), never a silent default",
        arguments: [
            (["search", "--sizse", "10"], "Error: unknown option '--sizse' — did you mean '--sizes'?"),
            (["search", "--queries", "many"], "Error: --queries expects a whole number of at least 1, got 'many'"),
            (["embed", "--row-loops", "sse"], "Error: --row-loops expects baseline, avx2 or avx512, got 'sse'"),
            (["serch"], "Error: unknown command 'serch' — did you mean 'search'?"),
        ])
    func benchTypos(arguments: [String], message: String) async throws {
        let run = try await runBinary(arguments, environment: [:], executable: URL(fileURLWithPath: builtProduct("trove-bench")))
        #expect(run.status == 64)
        #expect(run.error.hasPrefix(message + "\n"), "\(run.error)")
        #expect(run.output.isEmpty)
    }

    @Test("the binary exits 69 when the Ollama it was told to use is unreachable, with a one-line message")
    func unreachable() async throws {
        let closed = try ClosedPort()
        let url = closed.baseURL.absoluteString
        let folder = try TemporaryDirectory()
        try folder.write("n/a.md", "# a\n\nb\n")
        let run = try await runBinary(
            ["index", "--embedder", "ollama", folder.path + "/n"], environment: ["OLLAMA_HOST": url, "TROVE_INDEX": folder.path + "/i.sqlite"])
        #expect(run.status == 69)
        #expect(run.error.hasPrefix("Error: cannot reach Ollama at \(url)"))
        #expect(run.error.split(separator: "\n").count == 1)
    }
}

@Suite("trove doctor")
struct DoctorTests {
    @Test("all checks pass against a working server and print ok lines")
    func healthy() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let run = await trove(["doctor"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 0, "\(run.output)")
        for name in ["sqlite", "blas", "index", "ollama", "model", "embedding"] {
            #expect(run.output.contains("ok       \(name): "), "\(name) missing in \(run.output)")
        }
        #expect(run.output.contains("embedding: 64 dimensions"))
    }

    @Test("the BLAS line names the kernel: chosen for the CPU, or the user's OPENBLAS_CORETYPE")
    func blasKernel() async throws {
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        try #require(flags.contains(" avx2") && flags.contains(" fma"), "needs a CPU with AVX2 and FMA")
        let folder = try TemporaryDirectory()
        let closed = try ClosedPort()
        let base = ["OLLAMA_HOST": closed.baseURL.absoluteString, "TROVE_INDEX": folder.path + "/i.sqlite"]
        let chosen = try await runBinary(["doctor"], environment: base)
        #expect(chosen.output.contains("blas: OpenBLAS scores vectors correctly, kernel "), "\(chosen.output)")
        #expect(chosen.output.contains("chosen for this CPU"), "\(chosen.output)")
        #expect(!chosen.output.contains("kernel Prescott"), "\(chosen.output)")
        let forced = try await runBinary(["doctor"], environment: base.merging(["OPENBLAS_CORETYPE": "Haswell"]) { $1 })
        #expect(forced.output.contains("kernel Haswell, from OPENBLAS_CORETYPE=Haswell"), "\(forced.output)")
    }

    @Test(
        "TROVE_ISA=avx2 runs what an AVX2 CPU runs: OpenBLAS's Haswell kernel, no AVX-512 precision; a bad value warns")
    func instructionLimit() async throws {
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        try #require(flags.contains(" avx2") && flags.contains(" fma"), "needs a CPU with AVX2 and FMA")
        let folder = try TemporaryDirectory()
        let closed = try ClosedPort()
        let base = ["OLLAMA_HOST": closed.baseURL.absoluteString, "TROVE_INDEX": folder.path + "/i.sqlite"]
        let limited = try await runBinary(["doctor"], environment: base.merging(["TROVE_ISA": "avx2"]) { $1 })
        #expect(
            limited.output.contains("kernel Haswell, chosen for this CPU (OPENBLAS_CORETYPE overrides), TROVE_ISA=avx2"),
            "\(limited.output)")
        let bf16 = try await runBinary(
            ["index", "--precision", "bf16", folder.path], environment: base.merging(["TROVE_ISA": "avx2"]) { $1 })
        #expect(bf16.status == 64)
        #expect(bf16.error.contains("this CPU lacks the instructions (AVX-512 BF16)"), "\(bf16.error)")
        let bad = try await runBinary(["doctor"], environment: base.merging(["TROVE_ISA": "avx9"]) { $1 })
        #expect(
            bad.error.hasPrefix("warning: TROVE_ISA=avx9 ignored: give avx-vnni, avx2 or baseline, or unset it\n"),
            "\(bad.error)")
    }

    @Test("a server that is down, with Ollama chosen, fails the check, prints the fix, and exits 1")
    func serverDown() async throws {
        let closed = try ClosedPort()
        let folder = try TemporaryDirectory()
        let run = await trove(
            ["doctor"], index: folder.path + "/i.sqlite",
            environment: ["OLLAMA_HOST": closed.baseURL.absoluteString, "TROVE_PROVIDER": "ollama"])
        #expect(run.status == 1)
        #expect(run.output.contains("problem  ollama: cannot reach Ollama at"))
        #expect(run.output.contains("fix: start it with: ollama serve"))
    }

    @Test("a model that is not pulled is reported with the pull command")
    func modelMissing() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let run = await trove(["doctor", "--model", "bge-m3"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 1)
        #expect(run.output.contains("problem  model: model 'bge-m3' is not pulled — fix: ollama pull bge-m3"))
    }
}
