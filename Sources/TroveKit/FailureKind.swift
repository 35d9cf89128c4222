import Ollama
import OpenAICompatible
import TroveBLAS
import TroveMiniLM
import TroveStore

/// How a failure should be reported by a front end (the CLI turns it into an exit code).
public enum FailureKind: Sendable, Equatable {
    /// A model server is unreachable, or a model is missing or cannot do the job (exit 69).
    case unavailable
    /// The user stopped it (exit 130).
    case interrupted
    /// Anything else (exit 1).
    case failure

    /// The kind of `error`.
    public init(_ error: any Error) {
        switch error {
        case is CancellationError:
            self = .interrupted
        case let error as MiniLMError where error.code == .missingFile:
            self = .unavailable
        case is BLASUnavailable:
            self = .unavailable
        case let error as StoreError where error.code == .unavailable:
            self = .unavailable
        case let error as OllamaError:
            switch error.kind {
            case .unreachable, .timeout, .modelMissing, .notCapable, .serverBusy: self = .unavailable
            case .cancelled: self = .interrupted
            default: self = .failure
            }
        case let error as OpenAIError:
            switch error.kind {
            case .unauthorized, .notFound, .unreachable, .timeout, .rateLimited: self = .unavailable
            case .cancelled: self = .interrupted
            default: self = .failure
            }
        default:
            self = .failure
        }
    }
}
