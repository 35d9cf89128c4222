import Foundation

/// Pull, push, create, delete, copy and ps as the fake answers them, with streamed progress lines.
extension FakeOllamaServer.Core {
    private func progress(_ status: String, digest: String? = nil, total: Int64? = nil, completed: Int64? = nil)
        -> String
    {
        var object: [String: Any] = ["status": status]
        if let digest { object["digest"] = digest }
        if let total { object["total"] = total }
        if let completed { object["completed"] = completed }
        return Self.encode(object)
    }

    private func layerLines(verb: String, name: String, settings: FakeOllamaServer.Streaming) -> [String] {
        let digest = "sha256:" + FakeOllamaServer.digest(of: name)
        let steps = max(1, settings.progressSteps)
        return (0...steps).map { step in
            progress(
                "\(verb) \(digest.dropFirst(7).prefix(12))", digest: digest, total: settings.layerSize,
                completed: settings.layerSize * Int64(step) / Int64(steps))
        }
    }

    func pull(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let name = (body?["model"] ?? body?["name"]) as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        let settings = extras.locked { $0.streaming }
        if body?["stream"] as? Bool == false { return sendAll(fd, Self.json(200, "{\"status\":\"success\"}")) }
        var lines = [progress("pulling manifest")]
        if name.contains("nosuch") {
            var failing = settings
            failing.errorAfterLines = 1
            failing.errorMessage = "pull model manifest: file does not exist"
            return stream(lines, settings: failing, fd: fd)
        }
        lines += layerLines(verb: "pulling", name: name, settings: settings)
        lines += [progress("verifying sha256 digest"), progress("writing manifest"), progress("success")]
        extras.locked { $0.deleted.removeAll { $0 == name } }
        return stream(lines, settings: settings, fd: fd)
    }

    func push(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let name = body?["model"] as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        guard liveModel(name) != nil || extras.locked({ $0.created.contains(name) }) else {
            return sendAll(fd, Self.errorJSON(404, "model \"\(name)\" not found"))
        }
        let settings = extras.locked { $0.streaming }
        var lines = [progress("retrieving manifest"), progress("starting upload")]
        lines += layerLines(verb: "pushing", name: name, settings: settings)
        lines += [progress("pushing manifest"), progress("success")]
        return stream(lines, settings: settings, fd: fd)
    }

    func create(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let name = body?["model"] as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        guard let from = body?["from"] as? String else {
            return sendAll(fd, Self.errorJSON(400, "neither 'from' or 'files' was specified"))
        }
        guard liveModel(from) != nil else { return notFound(from, fd) }
        let settings = extras.locked {
            $0.created.append(name)
            return $0.streaming
        }
        var lines = [progress("using existing layer sha256:" + FakeOllamaServer.digest(of: from))]
        for key in ["system", "template", "parameters", "messages"] where body?[key] != nil {
            lines.append(progress("creating new layer sha256:" + FakeOllamaServer.digest(of: name + key)))
        }
        lines += [progress("writing manifest"), progress("success")]
        return stream(lines, settings: settings, fd: fd)
    }

    func delete(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let name = body?["model"] as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        guard liveModel(name) != nil else { return sendAll(fd, Self.errorJSON(404, "model '\(name)' not found")) }
        extras.locked { $0.deleted.append(name) }
        return sendAll(fd, Self.response(status: 200, contentType: "application/json", body: []))
    }

    func copy(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let source = body?["source"] as? String, let destination = body?["destination"] as? String,
            !source.isEmpty, !destination.isEmpty
        else { return sendAll(fd, Self.errorJSON(400, "source and destination are required")) }
        guard liveModel(source) != nil else { return sendAll(fd, Self.errorJSON(404, "model '\(source)' not found")) }
        extras.locked { $0.created.append(destination) }
        return sendAll(fd, Self.response(status: 200, contentType: "application/json", body: []))
    }

    func ps(fd: Int32) -> Bool {
        let loaded = extras.locked { $0.loaded }
        let entries: [[String: Any]] = loaded.compactMap { liveModel($0) }.map { model in
            let name = model.name.contains(":") ? model.name : model.name + ":latest"
            return [
                "name": name, "model": name, "size": 5_137_025_024 as Int64, "digest": model.digest,
                "details": ["format": "gguf", "family": model.family, "parameter_size": "3.2B"] as [String: Any],
                "expires_at": "2026-01-01T00:05:00Z", "size_vram": 5_137_025_024 as Int64,
                "context_length": model.contextLength,
            ]
        }
        return sendAll(fd, Self.json(200, Self.encode(["models": entries])))
    }

    func legacyEmbedding(_ body: [String: Any]?, fd: Int32) -> Bool {
        guard let name = body?["model"] as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        guard let model = liveModel(name) else { return notFound(name, fd) }
        let vector = FakeOllamaServer.embedding(for: body?["prompt"] as? String ?? "", dimension: model.dimension)
        return sendAll(fd, Self.json(200, "{\"embedding\":[\(vector.map(\.description).joined(separator: ","))]}"))
    }
}
