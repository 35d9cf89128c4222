import Ollama
import TroveSearch

/// The embedding side of the pipeline: Sendable, so each batch runs in a task of its own.
struct EmbeddingStage: Sendable {
    /// Retries every transient failure; used for whole batches and for single inputs.
    let full: RetryingEmbedder
    /// Retries only connection trouble; used while halving a failed batch, where a 5xx is the expected outcome.
    let splitting: RetryingEmbedder
    let dimension: Int
    let batchSize: Int

    init(
        embedder: any Embedder, policy: RetryPolicy, onRetry: @escaping @Sendable (any Error) -> Void,
        dimension: Int, batchSize: Int
    ) {
        full = RetryingEmbedder(embedder, policy: policy, onRetry: onRetry)
        splitting = RetryingEmbedder(
            embedder, policy: policy,
            shouldRetry: { error in
                guard let kind = (error as? OllamaError)?.kind else { return false }
                return kind == .unreachable || kind == .timeout || kind == .serverBusy
            }, onRetry: onRetry)
        self.dimension = dimension
        self.batchSize = batchSize
    }

    /// One vector, or why this input could not be embedded.
    enum Outcome: Sendable {
        case vector([Float])
        case failed(String)
    }

    /// Embeds `texts` in requests of `batchSize`; an input the server refuses is isolated by halving the request
    /// and reported as `.failed`, the others still get their vectors. Throws when the server itself is the problem.
    func embedAll(_ texts: [String]) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            let end = min(start + batchSize, texts.count)
            outcomes += try await isolating(texts[start..<end], first: true)
            start = end
        }
        return outcomes
    }

    private func isolating(_ texts: ArraySlice<String>, first: Bool) async throws -> [Outcome] {
        do {
            let vectors = try await (first || texts.count == 1 ? full : splitting).embed(Array(texts))
            return try vectors.map { vector in
                guard vector.count == dimension else {
                    throw IndexError.dimension(expected: dimension, got: vector.count, model: full.model)
                }
                guard vector.allSatisfy(\.isFinite) else {
                    return .failed("the model returned a vector with NaN or infinity")
                }
                return .vector(VectorMath.normalized(vector))
            }
        } catch let error as OllamaError where error.kind == .badRequest || error.kind == .serverError {
            if texts.count == 1 { return [.failed(error.serverMessage ?? error.message)] }
            let middle = texts.startIndex + texts.count / 2
            let left = try await isolating(texts[..<middle], first: false)
            let right = try await isolating(texts[middle...], first: false)
            let all = left + right
            // Ollama fails a whole batch for one bad input; when every input fails alone too, the server is broken.
            if all.count >= 4, all.allSatisfy({ if case .failed = $0 { true } else { false } }) { throw error }
            return all
        }
    }
}
