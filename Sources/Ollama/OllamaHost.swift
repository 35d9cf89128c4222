import Foundation

/// Resolves the server's base URL the way the `ollama` CLI does. CONTRACT STUB.
public enum OllamaHost {
    /// The built-in default, `http://127.0.0.1:11434`.
    public static let defaultURL = URL(string: "http://127.0.0.1:11434")!

    /// `flag` (e.g. `--ollama`), else `OLLAMA_HOST` (`host`, `host:port`, `scheme://host:port`), else the default.
    public static func resolve(flag: String?, environment: [String: String]) throws -> URL { fatalError("unimplemented") }
}
