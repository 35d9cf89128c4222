import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OllamaClient {
    /// `POST /api/pull`: downloads a model, streaming progress until a `success` line.
    ///
    /// Ollama keeps partly downloaded layers, so pulling again after an interruption resumes where it stopped.
    /// A registry failure arrives as an `{"error": …}` line and is thrown as `OllamaError`.
    public func pull(_ model: String, insecure: Bool = false) -> AsyncThrowingStream<ProgressUpdate, any Error> {
        progressStream("/api/pull", body: ["model": .string(model), "insecure": .bool(insecure)], model: model)
    }

    /// `POST /api/push`: uploads a model (named `namespace/name:tag`) to its registry, streaming progress.
    public func push(_ model: String, insecure: Bool = false) -> AsyncThrowingStream<ProgressUpdate, any Error> {
        progressStream("/api/push", body: ["model": .string(model), "insecure": .bool(insecure)], model: model)
    }

    /// `POST /api/create`: makes a model from another one, streaming progress until `success`.
    ///
    /// Build the request from a Modelfile with `CreateRequest(model:modelfile:)`.
    public func create(_ request: CreateRequest) -> AsyncThrowingStream<ProgressUpdate, any Error> {
        let endpoint = "/api/create"
        do {
            let body = try JSONEncoder().encode(Streaming(body: request, stream: true))
            return stream(try call(endpoint, method: "POST", json: body), endpoint: endpoint, model: request.from)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// `DELETE /api/delete`: removes a model and the layers no other model uses.
    public func delete(model: String) async throws {
        let endpoint = "/api/delete"
        let body = try JSONEncoder().encode(["model": model])
        _ = try await send(call(endpoint, method: "DELETE", json: body), endpoint: endpoint, model: model)
    }

    /// `POST /api/copy`: makes `destination` another name for `source`.
    public func copy(from source: String, to destination: String) async throws {
        let endpoint = "/api/copy"
        let body = try JSONEncoder().encode(["source": source, "destination": destination])
        _ = try await send(call(endpoint, method: "POST", json: body), endpoint: endpoint, model: source)
    }

    /// `GET /api/ps`: the models loaded in memory now.
    public func ps() async throws -> [RunningModel] {
        struct Reply: Decodable { var models: [RunningModel]? }
        let reply: Reply = try await decode("/api/ps", request: call("/api/ps", method: "GET", json: nil), model: nil)
        return reply.models ?? []
    }

    /// `HEAD /`: succeeds when an Ollama answers at `baseURL`; throws `.unreachable` or `.timeout` otherwise.
    ///
    /// The cheapest check there is: no JSON, no model loaded.
    public func probe() async throws {
        _ = try await send(call("/", method: "HEAD", json: nil), endpoint: "/", model: nil)
    }

    /// Whether an Ollama answers at `baseURL` (`probe()` without the reason).
    public func isReachable() async -> Bool {
        do {
            try await probe()
            return true
        } catch {
            return false
        }
    }

    /// Legacy `POST /api/embeddings`: one vector for one text, for servers older than 0.3.4 that lack `/api/embed`.
    ///
    /// Only call it as an explicit fallback: it neither batches nor normalizes, and newer servers may drop it.
    public func legacyEmbedding(
        model: String, prompt: String, options: Options? = nil, keepAlive: String? = nil
    ) async throws -> [Float] {
        struct Body: Encodable {
            var model: String
            var prompt: String
            var options: Options?
            var keepAlive: String?
            enum CodingKeys: String, CodingKey {
                case model, prompt, options
                case keepAlive = "keep_alive"
            }
        }
        struct Reply: Decodable { var embedding: [Float] }
        let endpoint = "/api/embeddings"
        let body = try JSONEncoder().encode(Body(model: model, prompt: prompt, options: options, keepAlive: keepAlive))
        let reply: Reply = try await decode(endpoint, request: call(endpoint, method: "POST", json: body), model: model)
        guard !reply.embedding.isEmpty else {
            throw OllamaError(
                kind: .unexpectedResponse, message: "ollama returned an empty embedding on \(endpoint)",
                endpoint: endpoint, status: 200)
        }
        return reply.embedding
    }

    private func progressStream(_ endpoint: String, body: [String: JSONValue], model: String)
        -> AsyncThrowingStream<ProgressUpdate, any Error>
    {
        do {
            var body = body
            body["stream"] = .bool(true)
            let data = try JSONEncoder().encode(body)
            return stream(try call(endpoint, method: "POST", json: data), endpoint: endpoint, model: model)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }
}
