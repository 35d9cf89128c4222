import Foundation
import Ollama
import Testing
import TroveTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects every chunk of a stream, and the error that ended it, if any.
func drain<Element>(_ stream: AsyncThrowingStream<Element, any Error>) async -> ([Element], OllamaError?) {
    var chunks: [Element] = []
    do {
        for try await chunk in stream { chunks.append(chunk) }
        return (chunks, nil)
    } catch let error as OllamaError {
        return (chunks, error)
    } catch {
        Issue.record("expected an OllamaError, got \(error)")
        return (chunks, nil)
    }
}

@Suite("chat and generate")
struct StreamingTests {
    let question = OllamaClient.ChatRequest(model: "llama3.2", messages: [.user("What is the capital of France?")])

    @Test("a streamed chat arrives token by token and ends with done, done_reason and the token counts")
    func streamsTokens() async throws {
        let rig = try Rig()
        let (chunks, error) = await drain(rig.client.chatStream(question))
        #expect(error == nil)
        #expect(chunks.count == 8)
        #expect(chunks.map(\.message.content).joined() == "Paris is the capital of France [1].")
        #expect(chunks.dropLast().allSatisfy { !$0.done })
        let last = try #require(chunks.last)
        #expect(last.done && last.doneReason == "stop")
        #expect(last.metrics.promptEvalCount == 6)
        #expect(last.metrics.evalCount == 7)
        #expect(last.metrics.totalDuration == .nanoseconds(5_043_500_667))
        let body = try #require(rig.server.lastRequestBody(path: "/api/chat"))
        let sent = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(sent["stream"] as? Bool == true)
    }

    @Test("lines cut at any byte, even inside a character, are framed whole", arguments: [1, 2, 3, 5, 7, 64])
    func arbitraryChunks(writeSize: Int) async throws {
        let rig = try Rig()
        rig.server.streaming.reply = "Ünïcode café ☕ naïve — 東京 done."
        rig.server.streaming.writeSize = writeSize
        let (chunks, error) = await drain(rig.client.chatStream(question))
        #expect(error == nil)
        #expect(chunks.map(\.message.content).joined() == "Ünïcode café ☕ naïve — 東京 done.")
        #expect(chunks.last?.done == true)
    }

    @Test("an error line in the middle of a 200 stream is thrown with Ollama's words, after the tokens before it")
    func midStreamError() async throws {
        let rig = try Rig()
        rig.server.streaming.errorAfterLines = 2
        let (chunks, error) = await drain(rig.client.chatStream(question))
        #expect(chunks.map(\.message.content) == ["Paris", " is"])
        #expect(error?.kind == .serverError)
        #expect(error?.status == 200)
        #expect(error?.serverMessage == "llama runner process has terminated: exit status 2")
        #expect(
            error?.description
                == "ollama failed in the middle of /api/chat: llama runner process has terminated: exit status 2")
    }

    @Test("a connection dropped mid-answer is an error, not a short answer")
    func droppedConnection() async throws {
        let rig = try Rig()
        rig.server.streaming.dropAfterLines = 3
        let (chunks, error) = await drain(rig.client.chatStream(question))
        #expect(chunks.count <= 3)
        #expect(error?.kind == .unreachable)
        #expect(
            error?.description
                == "the connection to Ollama at \(rig.base) broke in the middle of /api/chat — retry (is Ollama still"
                + " running?)")
    }

    @Test("a stream that goes silent fails after the stream idle timeout")
    func idleTimeout() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        server.streaming.stallAfterLines = 2
        let client = OllamaClient(baseURL: server.baseURL, streamIdleTimeout: .milliseconds(1500))
        let (chunks, error) = await drain(client.chatStream(question))
        #expect(chunks.count <= 2)
        #expect(error?.kind == .timeout)
        #expect(
            error?.description
                == "Ollama at http://127.0.0.1:\(server.port) sent nothing on /api/chat for 1.5 s — is it overloaded?"
                + " retry, or raise the stream idle timeout")
    }

    @Test("slow tokens never trip the idle timeout while they keep coming")
    func slowTokens() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        // 13 lines 250 ms apart take over 3 s, longer than the 2 s idle limit that no single gap comes near.
        server.streaming.reply = "one two three four five six seven eight nine ten eleven twelve"
        server.streaming.delayMilliseconds = 250
        let client = OllamaClient(baseURL: server.baseURL, streamIdleTimeout: .seconds(2))
        let (chunks, error) = await drain(client.chatStream(question))
        #expect(error == nil)
        #expect(chunks.last?.done == true)
    }

    @Test("concurrent streams from one client each get their own whole answer")
    func concurrentStreams() async throws {
        let rig = try Rig()
        rig.server.streaming.writeSize = 5
        let client = rig.client
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let request = OllamaClient.ChatRequest(model: "llama3.2", messages: [.user("question \(index)")])
                    return try await client.chatStream(request).collect().message.content
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "Paris is the capital of France [1].", count: 8))
    }

    @Test("a consumer that stops reading cancels the HTTP request")
    func consumerStops() async throws {
        let rig = try Rig()
        // 320 s of answer, far more than socket buffers hold: the server meets the closed connection on a later write
        // however late a busy machine lets the cancel happen (the whole suite on two cores once delayed it past 80 s).
        rig.server.streaming.reply = Array(repeating: "word", count: 16_000).joined(separator: " ")
        rig.server.streaming.delayMilliseconds = 20
        var seen = 0
        for try await _ in rig.client.chatStream(question) {
            seen += 1
            if seen == 2 { break }
        }
        #expect(seen == 2)
        #expect(await eventually(within: 300) { rig.server.abandonedStreamCount == 1 })
    }

    @Test("cancelling the consuming task cancels the HTTP request")
    func taskCancelled() async throws {
        let rig = try Rig()
        // 150 s of answer: far longer than any delay a loaded machine (or a busy 2-thread test pool) adds before
        // the cancel below.
        rig.server.streaming.reply = Array(repeating: "word", count: 1500).joined(separator: " ")
        rig.server.streaming.delayMilliseconds = 100
        let stream = rig.client.chatStream(question)
        let consumer = Task {
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        #expect(await eventually { rig.server.requestCount(path: "/api/chat") == 1 })
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = ContinuousClock.now
        consumer.cancel()
        let count = (try? await consumer.value) ?? 0
        // Generous: the point is that the loop ends at once instead of waiting for the answer (150 s here).
        #expect(ContinuousClock.now - cancelled < .seconds(30))
        #expect(count < 1500)
        #expect(await eventually { rig.server.abandonedStreamCount == 1 })
    }

    @Test("num_predict ends the answer with done_reason length, and options go out as snake_case")
    func lengthLimit() async throws {
        let rig = try Rig()
        var request = question
        request.options = .init(
            temperature: 0, topP: 0.9, topK: 40, numPredict: 3, numCtx: 4096, repeatPenalty: 1.1, seed: 42,
            stop: ["\n\n"])
        request.keepAlive = "10m"
        let reply = try await rig.client.chatStream(request).collect()
        #expect(reply.message.content == "Paris is the")
        #expect(reply.doneReason == "length")
        let body = try #require(rig.server.lastRequestBody(path: "/api/chat"))
        let sent = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let options = try #require(sent["options"] as? [String: Any])
        #expect(
            Set(options.keys) == [
                "temperature", "top_p", "top_k", "num_predict", "num_ctx", "repeat_penalty", "seed", "stop",
            ])
        #expect(options["num_ctx"] as? Int == 4096)
        #expect(sent["keep_alive"] as? String == "10m")
        #expect(sent["think"] == nil && sent["tools"] == nil && sent["format"] == nil)
    }

    @Test("a prompt longer than num_ctx shows as a prompt_eval_count lower than what was sent")
    func silentTruncation() async throws {
        let rig = try Rig()
        let long = Array(repeating: "context", count: 100).joined(separator: " ")
        let request = OllamaClient.ChatRequest(
            model: "llama3.2", messages: [.user(long)], options: .init(numCtx: 64))
        let reply = try await rig.client.chat(request)
        #expect(reply.metrics.promptEvalCount == 64)
    }

    @Test("without streaming, the whole answer comes in one response")
    func nonStreaming() async throws {
        let rig = try Rig()
        let reply = try await rig.client.chat(question)
        #expect(reply.message.role == .assistant)
        #expect(reply.message.content == "Paris is the capital of France [1].")
        #expect(reply.done && reply.doneReason == "stop")
        let sent = try #require(
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/chat")!) as? [String: Any])
        #expect(sent["stream"] as? Bool == false)
    }

    @Test("tools go out in Ollama's shape and the model's tool calls come back typed")
    func toolCalls() async throws {
        let rig = try Rig()
        let tool = OllamaClient.Tool(
            name: "search_notes", description: "Search the user's notes",
            parameters: ["type": "object", "properties": ["query": ["type": "string"]], "required": ["query"]])
        var request = question
        request.tools = [tool]
        let reply = try await rig.client.chatStream(request).collect()
        let call = try #require(reply.message.toolCalls?.first)
        #expect(call.function.name == "search_notes")
        #expect(call.function.arguments["query"] == .string("What is the capital of France?"))
        let sent = try #require(
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/chat")!) as? [String: Any])
        let tools = try #require(sent["tools"] as? [[String: Any]])
        #expect(tools.first?["type"] as? String == "function")
        #expect((tools.first?["function"] as? [String: Any])?["name"] as? String == "search_notes")

        // The result goes back as a tool message.
        let followUp = OllamaClient.ChatRequest(
            model: "llama3.2", messages: request.messages + [reply.message, .tool("Paris", name: "search_notes")])
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(followUp)) as? [String: Any]
        let last = (encoded?["messages"] as? [[String: Any]])?.last
        #expect(last?["role"] as? String == "tool" && last?["tool_name"] as? String == "search_notes")
    }

    @Test("think streams the reasoning apart from the answer")
    func thinking() async throws {
        let rig = try Rig()
        var request = question
        request.think = true
        let reply = try await rig.client.chatStream(request).collect()
        #expect(reply.message.thinking == "The notes mention Paris.")
        #expect(reply.message.content == "Paris is the capital of France [1].")
        request.think = .level("high")
        request.keepAlive = OllamaClient.keepAlive(.seconds(90))
        _ = try await rig.client.chat(request)
        let sent = try #require(
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/chat")!) as? [String: Any])
        #expect(sent["think"] as? String == "high")
        #expect(sent["keep_alive"] as? String == "90s")
        #expect(OllamaClient.keepAlive(.milliseconds(1500)) == "1500ms")
    }

    @Test("format json and a schema are sent as Ollama expects, and the answer is JSON")
    func jsonFormat() async throws {
        let rig = try Rig()
        var request = question
        request.format = .json
        let reply = try await rig.client.chat(request)
        let object = try JSONSerialization.jsonObject(with: Data(reply.message.content.utf8)) as? [String: Any]
        #expect(object?["answer"] as? String == "Paris is the capital of France [1].")
        request.format = .schema(["type": "object", "properties": ["answer": ["type": "string"]]])
        _ = try await rig.client.chat(request)
        let sent = try #require(
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/chat")!) as? [String: Any])
        #expect((sent["format"] as? [String: Any])?["type"] as? String == "object")
    }

    @Test("generate streams and answers whole, with the same metrics")
    func generate() async throws {
        let rig = try Rig()
        let request = OllamaClient.GenerateRequest(
            model: "llama3.2", prompt: "Why is the sky blue?", system: "Be brief.")
        let (chunks, error) = await drain(rig.client.generateStream(request))
        #expect(error == nil)
        #expect(chunks.map(\.response).joined() == "Paris is the capital of France [1].")
        #expect(chunks.last?.doneReason == "stop")
        #expect(chunks.last?.metrics.promptEvalCount == 7)
        let whole = try await rig.client.generate(request)
        #expect(whole.response == "Paris is the capital of France [1]." && whole.done)
    }

    @Test("a model that is not pulled fails the stream with the pull command")
    func modelMissing() async throws {
        let rig = try Rig()
        let (chunks, error) = await drain(rig.client.chatStream(.init(model: "mistral", messages: [.user("hi")])))
        #expect(chunks.isEmpty)
        #expect(error?.kind == .modelMissing)
        #expect(error?.description == "model 'mistral' is not pulled — run: ollama pull mistral")
        #expect(error?.serverMessage == "model \"mistral\" not found, try pulling it first")
    }

    @Test("an embedding model asked to chat or generate says to choose a chat model")
    func notCapable() async throws {
        let rig = try Rig()
        let chat = await ollamaError {
            try await rig.client.chat(.init(model: "nomic-embed-text", messages: [.user("hi")]))
        }
        #expect(chat?.kind == .notCapable)
        #expect(
            chat?.description == "model 'nomic-embed-text' cannot chat — choose a chat model, e.g. ollama pull llama3.2"
        )
        let (_, generate) = await drain(rig.client.generateStream(.init(model: "nomic-embed-text", prompt: "hi")))
        #expect(
            generate?.description
                == "model 'nomic-embed-text' cannot generate text — choose a chat model, e.g. ollama pull llama3.2")
    }

    @Test("a model without tools or thinking says so and what to do", arguments: ["tools", "thinking"])
    func unsupportedFeature(feature: String) async throws {
        let rig = try Rig()
        rig.server.fault = .status(400, message: "\"llama3.2\" does not support \(feature)")
        let (_, error) = await drain(rig.client.chatStream(question))
        #expect(error?.kind == .notCapable)
        #expect(
            error?.description
                == "model 'llama3.2' cannot do what was asked: \"llama3.2\" does not support \(feature) — leave that"
                + " option out or choose another model")
    }

    @Test("a busy server, a broken reply and no server at all are told apart on streams")
    func streamErrors() async throws {
        let rig = try Rig()
        rig.server.fault = .status(503, message: "server busy, please try again.  maximum pending requests exceeded")
        let (_, busy) = await drain(rig.client.chatStream(question))
        #expect(busy?.kind == .serverBusy)
        rig.server.fault = .malformedJSON
        let (_, broken) = await drain(rig.client.chatStream(question))
        #expect(broken?.kind == .decoding)
        let closed = try closedPort()
        let port = closed.port
        let gone = OllamaClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
        let (_, unreachable) = await drain(gone.chatStream(question))
        #expect(unreachable?.kind == .unreachable)
        #expect(
            unreachable?.description
                == "cannot reach Ollama at http://127.0.0.1:\(port) — is it running? (ollama serve)")
    }

    @Test("extra headers and the API key go with every request, streamed or not")
    func headers() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        let client = OllamaClient(baseURL: server.baseURL, headers: ["X-Trace": "7"], apiKey: "secret-key")
        _ = try await client.chatStream(question).collect()
        #expect(server.lastRequestHeaders(path: "/api/chat")?["authorization"] == "Bearer secret-key")
        #expect(server.lastRequestHeaders(path: "/api/chat")?["x-trace"] == "7")
        _ = try await client.ps()
        #expect(server.lastRequestHeaders(path: "/api/ps")?["authorization"] == "Bearer secret-key")
    }
}

@Suite("client configuration")
struct ClientConfigurationTests {
    @Test("a custom URLSessionConfiguration is used for plain and streaming requests")
    func customConfiguration() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-From-Configuration": "yes"]
        let client = OllamaClient(baseURL: server.baseURL, configuration: configuration)
        _ = try await client.version()
        _ = try await client.chatStream(.init(model: "llama3.2", messages: [.user("hi")])).collect()
        #expect(server.lastRequestHeaders(path: "/api/chat")?["x-from-configuration"] == "yes")
    }

    @Test("changing requestTimeout keeps the custom configuration and the headers")
    func timeoutChange() async throws {
        let server = try FakeOllamaServer(models: [.chat("llama3.2")])
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-From-Configuration": "yes"]
        var client = OllamaClient(baseURL: server.baseURL, headers: ["X-Header": "1"], configuration: configuration)
        client.requestTimeout = .seconds(5)
        _ = try await client.ps()
        #expect(server.lastRequestHeaders(path: "/api/ps")?["x-from-configuration"] == "yes")
        #expect(server.lastRequestHeaders(path: "/api/ps")?["x-header"] == "1")
    }
}

@Suite("error replies with status 200")
struct OKErrorTests {
    @Test("a non-streamed chat whose 200 reply is only an error throws Ollama's message")
    func errorWithOK() async throws {
        let rig = try Rig()
        rig.server.streaming.errorAfterLines = 0
        let request = OllamaClient.ChatRequest(model: "llama3.2", messages: [.user("hi")])
        let stream = await drain(rig.client.chatStream(request))
        #expect(stream.0.isEmpty)
        #expect(stream.1?.serverMessage == "llama runner process has terminated: exit status 2")
        let whole = await ollamaError { try await rig.client.chat(request) }
        #expect(whole?.kind == .serverError && whole?.status == 200)
        #expect(whole?.description == "ollama failed on /api/chat: llama runner process has terminated: exit status 2")
    }
}

@Suite("secrets stay secret")
struct SecretTests {
    @Test("printing, dumping or debugging a client never shows the API key")
    func apiKeyHidden() {
        let client = OllamaClient(baseURL: URL(string: "http://h:1")!, apiKey: "sk-very-secret")
        #expect(String(describing: client) == "OllamaClient(http://h:1)")
        #expect(!String(reflecting: client).contains("sk-very-secret"))
        var dumped = ""
        dump(client, to: &dumped)
        #expect(!dumped.contains("sk-very-secret"))
        #expect(dumped.contains("Authorization"))
    }
}
