import Foundation

/// An Ollama look-alike speaking real HTTP/1.1 on a loopback port, for tests and benchmarks.
///
/// One listener thread accepts; each connection gets its own thread and may carry many requests (keep-alive).
public final class FakeOllamaServer: Sendable {
    /// How the server misbehaves; `.normal` answers like Ollama.
    public enum Fault: Sendable, Equatable {
        /// Answers like Ollama.
        case normal
        /// Every request to /api/* answers with this status and `{"error": message}`.
        case status(Int, message: String)
        /// 200 with a body that is not JSON.
        case malformedJSON
        /// Embeddings of `dimension + 1` floats.
        case wrongDimension
        /// One embedding fewer than inputs.
        case wrongCount
        /// Sleeps before answering.
        case delay(milliseconds: Int)
    }

    /// The models it serves.
    public let models: [Model]
    /// The port it listens on.
    public let port: UInt16
    /// Sockets, threads and counters; the threads hold it, not `self`, so `deinit` can stop them.
    let core: Core

    /// Starts listening on 127.0.0.1 at `port` (0: a free port the kernel picks).
    public init(models: [Model] = [.embedding("nomic-embed-text")], port: UInt16 = 0) throws {
        self.models = models
        core = try Core(models: models, port: port)
        self.port = core.port
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The current misbehaviour; safe to change while requests run.
    public var fault: Fault {
        get { core.locked { core.currentFault } }
        set { core.locked { core.currentFault = newValue } }
    }

    /// Makes the next `count` requests to /api/embed answer `status` with `{"error": message}` (then normal again):
    /// a server that is briefly busy (503) or failing (500).
    public func failNextEmbeds(_ count: Int, status: Int, message: String = "server busy") {
        core.locked { core.embedFailures = (count, status, message) }
    }

    /// When set, an /api/embed request with any input containing this text fails with HTTP 500, as Ollama fails a
    /// whole batch for one input its runner cannot handle.
    public var poisonedText: String? {
        get { core.locked { core.poisonedText } }
        set { core.locked { core.poisonedText = newValue } }
    }

    /// When set, /api/tags reports this digest for every model: the weights changed under the same name.
    public var digestOverride: String? {
        get { core.locked { core.digestOverride } }
        set { core.locked { core.digestOverride = newValue } }
    }

    /// Number of texts embedded so far.
    public var embeddedInputCount: Int { core.locked { core.embeddedTotal } }

    /// The number of inputs of each `/api/embed` request answered so far, in arrival order.
    public var embedBatchSizes: [Int] { core.locked { core.batchSizes } }

    /// How many requests reached `path` (e.g. `/api/embed`), whatever their outcome.
    public func requestCount(path: String) -> Int { core.locked { core.requestCounts[path, default: 0] } }

    /// How many TCP connections the server accepted (few, when clients keep them alive).
    public var connectionCount: Int { core.locked { core.acceptedConnections } }

    /// How many requests reached the server at all.
    public var totalRequestCount: Int { core.locked { core.requestCounts.values.reduce(0, +) } }

    /// The body of the latest request to `path`, to check what a client sent.
    public func lastRequestBody(path: String) -> Data? { core.locked { core.lastBodies[path] } }

    /// Closes the port and every connection; waits (up to 2 s) for the threads to end. Idempotent.
    public func stop() { core.stop() }
}
