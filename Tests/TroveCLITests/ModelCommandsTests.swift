import Foundation
import Testing
import TroveCLI
import TroveTestSupport

@Suite("trove models, pull, rm, doctor --chat-model")
struct ModelCommandsTests {
    @Test("models lists size, family, embedding capability, dimension and context length")
    func models() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        let folder = try TemporaryDirectory()
        let run = await trove(["models"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 0, "\(run.error)")
        #expect(
            run.output == """
                NAME                     SIZE    FAMILY      EMBEDDING  DIMENSION  CONTEXT
                llama3.2:latest          3.9 MB  llama       no         -          131072
                nomic-embed-text:latest  1.0 MB  nomic-bert  yes        64         2048

                """)
    }

    @Test("models --json is one array with every field")
    func modelsJSON() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text")])
        let folder = try TemporaryDirectory()
        let run = await trove(["models", "--json"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
        let row = try #require(rows?.first)
        #expect(row["name"] as? String == "nomic-embed-text:latest")
        #expect(row["embedding"] as? Bool == true)
        #expect(row["dimension"] as? Int == 64 && row["context_length"] as? Int == 2048)
        #expect(row["size"] as? Int == 1_064_000 && row["family"] as? String == "nomic-bert")
    }

    @Test("no models at all says what to pull")
    func noModels() async throws {
        let server = try FakeOllamaServer(models: [])
        let folder = try TemporaryDirectory()
        let run = await trove(["models"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 0)
        #expect(run.output.isEmpty)
        #expect(run.error == "no models pulled on http://127.0.0.1:\(server.port) — try: trove pull nomic-embed-text\n")
        let json = await trove(["models", "--json"], index: folder.path + "/i.sqlite", server: server)
        #expect(json.output == "[]\n")
    }

    @Test("models without a server exits 69 with the fix")
    func modelsUnreachable() async throws {
        let closed = try ClosedPort()
        let folder = try TemporaryDirectory()
        let run = await trove(
            ["models"], index: folder.path + "/i.sqlite", environment: ["OLLAMA_HOST": closed.baseURL.absoluteString])
        #expect(run.status == 69)
        #expect(
            run.error
                == "Error: cannot reach Ollama at http://127.0.0.1:\(closed.port) — is it running? (ollama serve)\n")
    }

    @Test("pull without a terminal prints one line per step, then the result on stdout")
    func pullPlain() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let run = await trove(["pull", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "pulled llama3.2\n")
        let digest = String(FakeOllamaServer.Model.embedding("llama3.2").digest.prefix(12))
        #expect(
            run.error == """
                pulling manifest
                pulling \(digest): 3.8 MB
                verifying sha256 digest
                writing manifest
                success

                """)
    }

    @Test("pull on a terminal draws a progress line on stderr and erases it")
    func pullTerminal() async throws {
        let server = try FakeOllamaServer()
        let output = CapturedStream()
        let error = CapturedStream(isTerminal: true)
        let environment = ["HOME": NSTemporaryDirectory(), "OLLAMA_HOST": server.baseURL.absoluteString]
        let status = await Launcher.run(
            ["pull", "llama3.2"], console: Console(output: output, error: error, environment: environment))
        #expect(status == 0)
        #expect(output.text == "pulled llama3.2\n")
        // Which updates get drawn depends on timing (redraws are throttled); the bar itself is tested in
        // ProgressMeterTests. Here: drawn in place, never as plain lines, and erased at the end.
        #expect(error.text.hasPrefix("\r\u{1B}[K"))
        #expect(!error.text.contains("\n"))
        #expect(error.text.hasSuffix("\r\u{1B}[K"))
    }

    @Test("a pull that breaks says how to resume; an unknown name says to check it")
    func pullFailures() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        server.streaming.dropAfterLines = 2
        let broken = await trove(["pull", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(broken.status == 69)
        #expect(broken.error.hasSuffix(" — run trove pull llama3.2 again to resume where it stopped\n"))
        server.streaming.dropAfterLines = nil
        let unknown = await trove(["pull", "nosuch"], index: folder.path + "/i.sqlite", server: server)
        #expect(unknown.status == 69)
        #expect(
            unknown.error.hasSuffix(
                "Error: ollama could not pull 'nosuch': pull model manifest: file does not exist — check the name at"
                    + " https://ollama.com/library\n"))
    }

    @Test(
        "pull needs one valid name",
        arguments: [
            ([], "Error: missing the model to pull, e.g. nomic-embed-text"),
            (
                ["bad name"],
                "Error: 'bad name' is not a model name: 'bad name' may hold only letters, digits, '.', '_' and '-'"
            ),
            (["a", "b"], "Error: unexpected argument 'b': pull one model at a time"),
        ])
    func pullUsage(arguments: [String], message: String) async throws {
        let folder = try TemporaryDirectory()
        let run = await trove(["pull"] + arguments, index: folder.path + "/i.sqlite")
        #expect(run.status == 64)
        #expect(run.error.hasPrefix(message + "\n"))
    }

    @Test("rm without a terminal and without --yes refuses; with --yes it deletes")
    func rm() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        let folder = try TemporaryDirectory()
        let refused = await trove(["rm", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(refused.status == 64)
        #expect(
            refused.error.hasPrefix(
                "Error: refusing to delete model 'llama3.2' without confirmation: no terminal to ask — add --yes\n"))
        #expect(server.deletedModels.isEmpty)
        let deleted = await trove(["rm", "--yes", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(deleted.status == 0)
        #expect(deleted.output == "deleted llama3.2\n")
        #expect(server.deletedModels == ["llama3.2"])
        let again = await trove(["rm", "-y", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(again.status == 1)
        #expect(
            again.error
                == "Error: model 'llama3.2' is not on Ollama at http://127.0.0.1:\(server.port) — nothing to delete"
                + " (see: trove models)\n")
    }

    @Test("doctor --chat-model checks the chat model too")
    func doctorChatModel() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        let folder = try TemporaryDirectory()
        let healthy = await trove(
            ["doctor", "--chat-model", "llama3.2"], index: folder.path + "/i.sqlite", server: server)
        #expect(healthy.status == 0, "\(healthy.output)")
        #expect(
            healthy.output.contains("ok       chat model: 'llama3.2' is pulled and can chat, context 131072 tokens\n"))
        let missing = await trove(
            ["doctor", "--chat-model", "mistral"], index: folder.path + "/i.sqlite", server: server)
        #expect(missing.status == 1)
        #expect(
            missing.output.contains("problem  chat model: model 'mistral' is not pulled — fix: ollama pull mistral\n"))
        let embedder = await trove(
            ["doctor", "--chat-model", "nomic-embed-text"], index: folder.path + "/i.sqlite", server: server)
        #expect(embedder.status == 1)
        #expect(
            embedder.output.contains(
                "problem  chat model: 'nomic-embed-text' cannot chat (it can: embedding) — fix: choose a chat model,"
                    + " e.g. ollama pull llama3.2\n"))
    }
}

@Suite("configuration file and trove config")
struct ConfigTests {
    @Test("trove config shows each value and where it came from: flag > environment > file > default")
    func precedence() async throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write(
            "config/trove/config.json",
            #"{"ollama_url": "gpu-box:11500", "chat_model": "qwen2.5:7b", "embed_model": "bge-m3", "search_limit": 5}"#)
        let run = await trove(
            ["config", "--model", "mxbai-embed-large"], index: folder.path + "/i.sqlite",
            environment: ["XDG_CONFIG_HOME": folder.path + "/config", "TROVE_CHAT_MODEL": "llama3.2:1b"])
        #expect(run.status == 0, "\(run.error)")
        let file = folder.path + "/config/trove/config.json"
        let lines = run.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("ollama_url http://gpu-box:11500 (file \(file))"))
        #expect(lines.contains("embed_model mxbai-embed-large (flag)"))
        #expect(lines.contains("chat_model llama3.2:1b (environment TROVE_CHAT_MODEL)"))
        #expect(lines.contains("index \(folder.path)/i.sqlite (environment TROVE_INDEX)"))
        #expect(lines.contains("search_limit 5 (file \(file))"))
        #expect(lines.contains("request_timeout 300 s (default)"))
        #expect(lines.contains("api_key (not set) (default)"))
        #expect(lines.contains("config file: \(file)"))
    }

    @Test("OLLAMA_HOST beats the file, --ollama beats both; the API key is never shown")
    func hostAndKey() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("c.json", #"{"ollama_url": "http://file-host:1"}"#)
        let env = ["TROVE_CONFIG": file, "OLLAMA_HOST": "env-host:2", "OLLAMA_API_KEY": "sk-secret"]
        let fromEnv = await trove(["config", "--json"], index: folder.path + "/i.sqlite", environment: env)
        let object = try JSONSerialization.jsonObject(with: Data(fromEnv.output.utf8)) as? [String: [String: String]]
        #expect(object?["ollama_url"] == ["value": "http://env-host:2", "source": "environment OLLAMA_HOST"])
        #expect(object?["api_key"] == ["value": "(set, hidden)", "source": "environment OLLAMA_API_KEY"])
        #expect(object?["config_file"] == ["value": file, "source": "found"])
        #expect(!fromEnv.output.contains("sk-secret"))
        let fromFlag = await trove(
            ["config", "--ollama", "flag-host:3"], index: folder.path + "/i.sqlite", environment: env)
        #expect(fromFlag.output.contains("http://flag-host:3"))
        #expect(fromFlag.output.contains("(flag --ollama)"))
    }

    @Test(
        "unknown keys and bad values are errors naming the key and the file",
        arguments: [
            (
                #"{"serch_limit": 5}"#,
                "unknown key 'serch_limit' in config file FILE — known keys: api_key_command, api_key_file, base_url, chat_base_url,"
                    + " chat_model, chat_provider, chat_temperature, embed_model, index, ollama_url, provider, request_timeout, search_limit"
            ),
            (
                #"{"search_limit": "ten"}"#,
                "bad value for 'search_limit' in config file FILE: expected a whole number from 1 to 10000, got \"ten\""
            ),
            (
                #"{"search_limit": true}"#,
                "bad value for 'search_limit' in config file FILE: expected a whole number from 1 to 10000, got true"
            ),
            (
                #"{"chat_temperature": 3}"#,
                "bad value for 'chat_temperature' in config file FILE: expected a number from 0 to 2, got 3"
            ),
            (
                #"{"chat_model": ""}"#,
                "bad value for 'chat_model' in config file FILE: expected a non-empty string, got \"\""
            ),
            (
                #"{"ollama_url": "http://h:99999"}"#,
                "bad value for 'ollama_url' in config file FILE: port '99999' is not a number from 0 to 65535"
            ),
            (#"{"chat_model": }"#, "config file FILE is not valid JSON — fix it, or see: trove config --help"),
            (#"["x"]"#, "config file FILE must hold a JSON object like {\"chat_model\": \"llama3.2\"}"),
        ])
    func badFiles(text: String, message: String) async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("trove/config.json", text)
        let run = await trove(
            ["config"], index: folder.path + "/i.sqlite", environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(run.status == 1)
        #expect(run.error == "Error: " + message.replacingOccurrences(of: "FILE", with: file) + "\n")
    }

    @Test("a config file that is there but cannot be read is an error naming it, not silently skipped")
    func unreadableFile() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/trove/config.json", withIntermediateDirectories: true)
        let run = await trove(["config"], index: folder.path + "/i.sqlite", environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(run.status == 1)
        #expect(
            run.error
                == "Error: config file \(folder.path)/trove/config.json cannot be read: it is a folder — fix it, or set "
                + "TROVE_CONFIG\n")
    }

    @Test("a key in argv, or bound for another machine over plain http, is warned about once")
    func keyWarnings() async throws {
        let folder = try TemporaryDirectory()
        let child = try Child(
            ["config", "--api-key", "sk-secret", "--ollama", "http://192.0.2.7:11434"],
            environment: ["TROVE_INDEX": folder.path + "/i.sqlite", "TROVE_CONFIG": try folder.write("c.json", "{}")],
            logs: folder.path + "/run")
        let run = await child.wait()
        #expect(run.status == 0)
        #expect(
            run.error
                == "warning: --api-key is visible to other users of this machine (ps, /proc) — set OLLAMA_API_KEY instead\n"
                + "warning: the API key is sent unencrypted over http to 192.0.2.7 — use an https:// address\n")
        #expect(!run.output.contains("sk-secret"))
        let local = await trove(
            ["config"], index: folder.path + "/i.sqlite",
            environment: ["OLLAMA_API_KEY": "k", "OLLAMA_HOST": "http://127.0.0.1:9", "TROVE_CONFIG": folder.path + "/c.json"])
        #expect(local.error.isEmpty)
    }

    @Test("every command reads the file: search's server comes from it")
    func filePointsAtServer() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        let folder = try TemporaryDirectory()
        let file = try folder.write("c.json", #"{"ollama_url": "\#(server.baseURL.absoluteString)"}"#)
        let run = await trove(["models"], index: folder.path + "/i.sqlite", environment: ["TROVE_CONFIG": file])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("llama3.2:latest"))
    }
}
