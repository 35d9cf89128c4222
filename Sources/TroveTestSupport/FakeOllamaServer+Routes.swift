import Foundation
@preconcurrency import Glibc

/// The Ollama endpoints the fake answers (`/api/embed`, `/api/tags`, `/api/show`, `/api/version`) and its faults.
extension FakeOllamaServer.Core {
    func handle(_ request: Request) -> [UInt8] {
        let fault: FakeOllamaServer.Fault = locked {
            requestCounts[request.path, default: 0] += 1
            lastBodies[request.path] = Data(request.body)
            return currentFault
        }
        if request.path == "/" {
            return Self.response(
                status: 200, contentType: "text/plain; charset=utf-8", body: Array("Ollama is running".utf8))
        }
        if request.path.hasPrefix("/api/") {
            switch fault {
            case .status(let code, let message): return Self.errorJSON(code, message)
            case .malformedJSON: return Self.json(200, "{\"embeddings\": [[0.1, 0.2,")
            case .delay(let milliseconds): pause(milliseconds: milliseconds)
            default: break
            }
        }
        switch (request.method, request.path) {
        case ("POST", "/api/embed"):
            let failure: (Int, String)? = locked {
                guard let failing = embedFailures, failing.remaining > 0 else { return nil }
                embedFailures = failing.remaining > 1 ? (failing.remaining - 1, failing.status, failing.message) : nil
                return (failing.status, failing.message)
            }
            if let (status, message) = failure { return Self.errorJSON(status, message) }
            return embed(request.body, fault: fault)
        case ("GET", "/api/tags"): return tags()
        case ("POST", "/api/show"): return show(request.body)
        case ("GET", "/api/version"): return Self.json(200, "{\"version\":\"0.9.0\"}")
        case (_, "/api/embed"), (_, "/api/tags"), (_, "/api/show"), (_, "/api/version"):
            return Self.response(status: 405, contentType: "text/plain", body: Array("405 method not allowed".utf8))
        default:
            return Self.response(status: 404, contentType: "text/plain", body: Array("404 page not found".utf8))
        }
    }

    /// Sleeps in short steps so that `stop()` is not held up.
    private func pause(milliseconds: Int) {
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while Date() < deadline, !locked({ stopped }) {
            usleep(useconds_t(min(10_000, max(1, deadline.timeIntervalSinceNow * 1_000_000))))
        }
    }

    /// The model `name` refers to, accepting a missing `:latest`.
    private func model(named name: String) -> FakeOllamaServer.Model? {
        func full(_ name: String) -> String { name.contains(":") ? name : name + ":latest" }
        return models.first { full($0.name) == full(name) }
    }

    private func object(_ body: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    private func embed(_ body: [UInt8], fault: FakeOllamaServer.Fault) -> [UInt8] {
        guard let request = object(body) else { return Self.errorJSON(400, "invalid request body") }
        guard let name = request["model"] as? String, !name.isEmpty else {
            return Self.errorJSON(400, "model is required")
        }
        guard let model = model(named: name) else {
            return Self.errorJSON(404, "model \"\(name)\" not found, try pulling it first")
        }
        guard model.capabilities.contains("embedding") else {
            return Self.errorJSON(400, "\"\(name)\" does not support embeddings")
        }
        let inputs: [String]
        switch request["input"] {
        case nil: inputs = []
        case let text as String: inputs = [text]
        case let list as [Any]:
            let texts = list.compactMap { $0 as? String }
            guard texts.count == list.count else { return Self.errorJSON(400, "invalid input type") }
            inputs = texts
        default: return Self.errorJSON(400, "invalid input type")
        }
        let truncate = request["truncate"] as? Bool ?? true
        var tokens = 0
        var hashed: [[UInt64]] = []
        for text in inputs {
            // One word stands for one token.
            var hashes = FakeOllamaServer.wordHashes(of: text).map { $0 ^ (model.space &* 0x9E37_79B9_7F4A_7C15) }
            if hashes.count > model.contextLength {
                if !truncate { return Self.errorJSON(400, "the input length exceeds the context length") }
                hashes.removeLast(hashes.count - model.contextLength)
            }
            tokens += hashes.count
            hashed.append(hashes)
        }
        if let poison = locked({ poisonedText }), inputs.contains(where: { $0.contains(poison) }) {
            return Self.errorJSON(500, "llama runner failed to process the input")
        }
        var dimension = model.dimension
        if let asked = request["dimensions"] as? Int, asked > 0 { dimension = min(asked, model.dimension) }
        if fault == .wrongDimension { dimension += 1 }
        var vectors = hashed.map { FakeOllamaServer.embedding(hashes: $0, dimension: dimension) }
        if fault == .wrongCount, !vectors.isEmpty { vectors.removeLast() }
        locked {
            embeddedTotal += inputs.count
            batchSizes.append(inputs.count)
        }
        var text = "{\"model\":\(Self.quote(name)),\"embeddings\":["
        text.reserveCapacity(vectors.count * dimension * 12 + 100)
        for (index, vector) in vectors.enumerated() {
            if index > 0 { text += "," }
            text += "["
            for (position, value) in vector.enumerated() {
                if position > 0 { text += "," }
                text += value.description
            }
            text += "]"
        }
        text += "],\"total_duration\":1000000,\"load_duration\":1000,\"prompt_eval_count\":\(tokens)}"
        return Self.json(200, text)
    }

    private func tags() -> [UInt8] {
        let override = locked { digestOverride }
        let entries = models.map { model -> [String: Any] in
            let name = model.name.contains(":") ? model.name : model.name + ":latest"
            return [
                "name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z",
                "size": 1_000_000 + model.dimension * 1000, "digest": override ?? model.digest,
                "details": [
                    "format": "gguf", "family": model.family, "families": [model.family],
                    "parameter_size": "137M", "quantization_level": "F16",
                ] as [String: Any],
            ]
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: ["models": entries], options: [.sortedKeys])) ?? Data()
        return Self.response(status: 200, contentType: "application/json; charset=utf-8", body: [UInt8](data))
    }

    private func show(_ body: [UInt8]) -> [UInt8] {
        guard let request = object(body) else { return Self.errorJSON(400, "invalid request body") }
        // Older clients send `name`; Ollama accepts both.
        guard let name = (request["model"] ?? request["name"]) as? String, !name.isEmpty else {
            return Self.errorJSON(400, "model is required")
        }
        guard let model = model(named: name) else {
            return Self.errorJSON(404, "model '\(name)' not found")
        }
        let reply: [String: Any] = [
            "license": "Apache 2.0", "modelfile": "FROM \(model.name)", "parameters": "",
            "template": "{{ .Prompt }}",
            "details": [
                "parent_model": "", "format": "gguf", "family": model.family, "families": [model.family],
                "parameter_size": "137M", "quantization_level": "F16",
            ] as [String: Any],
            "model_info": [
                "general.architecture": model.family, "general.parameter_count": 136_727_040,
                "general.file_type": 1, "general.quantization_version": 2,
                "\(model.family).attention.head_count": 12, "\(model.family).attention.layer_norm_epsilon": 1e-12,
                "\(model.family).embedding_length": model.dimension,
                "\(model.family).context_length": model.contextLength,
                "\(model.family).pooling_type": 1, "tokenizer.ggml.model": "bert",
                "tokenizer.ggml.tokens": NSNull(),
            ] as [String: Any],
            "capabilities": model.capabilities,
            "modified_at": "2026-01-01T00:00:00Z",
        ]
        let data = (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys])) ?? Data()
        return Self.response(status: 200, contentType: "application/json; charset=utf-8", body: [UInt8](data))
    }
}
