import Foundation
import Ollama
import Testing

@Suite("OLLAMA_HOST and --ollama")
struct OllamaHostTests {
    @Test(
        "OLLAMA_HOST follows Ollama's own rules",
        arguments: [
            ("", "http://127.0.0.1:11434"),
            ("   ", "http://127.0.0.1:11434"),
            ("\"\"", "http://127.0.0.1:11434"),
            ("example.com", "http://example.com:11434"),
            ("example.com:1234", "http://example.com:1234"),
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            (":11435", "http://127.0.0.1:11435"),
            ("http://example.com", "http://example.com:80"),
            ("https://example.com", "https://example.com:443"),
            ("http://example.com:5678", "http://example.com:5678"),
            ("https://example.com:5678/", "https://example.com:5678"),
            ("http://example.com/ollama", "http://example.com:80/ollama"),
            ("example.com:1234/path/", "http://example.com:1234/path"),
            ("0.0.0.0", "http://127.0.0.1:11434"),
            ("0.0.0.0:9999", "http://127.0.0.1:9999"),
            ("  \"10.0.0.5:7000\"  ", "http://10.0.0.5:7000"),
            ("'localhost'", "http://localhost:11434"),
            ("[::1]:4000", "http://[::1]:4000"),
            ("::1", "http://[::1]:11434"),
            ("ollama.com", "https://ollama.com:443"),
        ])
    func environment(value: String, expected: String) throws {
        let url = try OllamaHost.resolve(flag: nil, environment: ["OLLAMA_HOST": value])
        #expect(url.absoluteString == expected)
    }

    @Test("with neither flag nor variable the default is used")
    func missing() throws {
        #expect(try OllamaHost.resolve(flag: nil, environment: [:]) == OllamaHost.defaultURL)
        #expect(OllamaHost.defaultURL.absoluteString == "http://127.0.0.1:11434")
    }

    @Test("--ollama wins over OLLAMA_HOST, an empty flag does not")
    func flagWins() throws {
        let environment = ["OLLAMA_HOST": "envhost:1"]
        #expect(
            try OllamaHost.resolve(flag: "flaghost:2", environment: environment).absoluteString == "http://flaghost:2")
        #expect(try OllamaHost.resolve(flag: " ", environment: environment).absoluteString == "http://envhost:1")
    }

    @Test(
        "an unusable value is refused with the reason",
        arguments: [
            (
                "example.com:abc",
                "OLLAMA_HOST 'example.com:abc' is not a valid host: port 'abc' is not a number from 0 to 65535"
            ),
            (
                "example.com:70000",
                "OLLAMA_HOST 'example.com:70000' is not a valid host: port '70000' is not a number from 0 to 65535"
            ),
            (
                "ftp://example.com",
                "OLLAMA_HOST 'ftp://example.com' is not a valid host: scheme 'ftp' is not http or https"
            ),
            (
                "exa mple.com",
                "OLLAMA_HOST 'exa mple.com' is not a valid host: host 'exa mple.com' contains characters a host name cannot have"
            ),
        ])
    func invalid(value: String, message: String) {
        #expect {
            try OllamaHost.resolve(flag: nil, environment: ["OLLAMA_HOST": value])
        } throws: { error in
            String(describing: error) == message
        }
    }

    @Test("a bad --ollama names the flag")
    func invalidFlag() {
        #expect {
            try OllamaHost.resolve(flag: "host:x", environment: [:])
        } throws: { error in
            String(describing: error)
                == "--ollama 'host:x' is not a valid host: port 'x' is not a number from 0 to 65535"
        }
    }
}
