import Foundation
import TroveIngest

/// What the host asks the worker: read the descriptor that comes with this line as `format`, within `limits`.
/// One JSON line on the worker's socket, the file's descriptor attached to it (SCM_RIGHTS).
package struct WorkerRequest: Sendable, Equatable, Codable {
    package var format: DocumentFormat
    package var limits: ExtractionLimits
    /// The host's watchdog in seconds: the worker ends itself a little after it (`alarm`), in case the host is gone
    /// and cannot.
    package var deadline: Int

    /// A request.
    package init(format: DocumentFormat, limits: ExtractionLimits, deadline: Int) {
        self.format = format
        self.limits = limits
        self.deadline = deadline
    }
}

/// What the worker answers: one JSON line with the document or the named failure.
package enum WorkerReply: Sendable, Equatable, Codable {
    case document(ExtractedDocument)
    case failure(ExtractionFailure)

    /// The reply as one line of JSON with its newline (strings are escaped, so no raw newline is inside).
    package func line() -> Data {
        // Encoding plain strings, integers and booleans cannot fail.
        var data = (try? JSONEncoder().encode(self)) ?? Data(#"{"failure":{"_0":{"kind":"crashed","detail":"unencodable"}}}"#.utf8)
        data.append(0x0A)
        return data
    }
}

extension WorkerRequest {
    /// The request as one line of JSON with its newline.
    package func line() -> Data {
        var data = (try? JSONEncoder().encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }
}
