import Ollama
import OpenAICompatible
import TroveSystem

// Ollama and OpenAICompatible are standalone products that cannot import TroveSystem: TroveKit, which wraps both,
// gives their errors the one error shape here, once, so front ends read every fault through `TroveError`.

extension OllamaError: TroveError {
    /// The server unreachable, busy or too slow, or the model missing or unable: a missing service (exit 69).
    public var fault: Fault {
        switch kind {
        case .unreachable, .timeout, .modelMissing, .notCapable, .serverBusy: .unavailable
        case .cancelled: .interrupted
        default: .failure
        }
    }
}

extension OpenAIError: TroveError {
    /// A wrong key, an unknown model, the server unreachable, too slow or rate-limited: a missing service (exit 69).
    public var fault: Fault {
        switch kind {
        case .unauthorized, .notFound, .unreachable, .timeout, .rateLimited: .unavailable
        case .cancelled: .interrupted
        default: .failure
        }
    }
}
