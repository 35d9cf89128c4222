import Foundation
import TroveKit

/// The server's checks of a request line, in the order it makes them.
extension SearchServer {
    /// A request line checked as the server checks it: JSON, the protocol version, the embedding settings, then
    /// every field's range. Package-wide so the fuzz target and the tests exercise exactly the server's checks.
    package static func decode(_ line: Data, admission: Admission) -> Result<Envelope, Refused> {
        func refuse(_ code: Refusal, _ message: String) -> Result<Envelope, Refused> {
            .failure(Refused(response: Response(error: message, code: code.rawValue)))
        }
        struct Version: Decodable { var `protocol`: Int? }
        guard let version = try? JSONDecoder().decode(Version.self, from: line) else {
            return refuse(.badRequest, "bad request: not a JSON object")
        }
        guard version.protocol == protocolVersion else {
            return refuse(
                .protocolMismatch,
                "this trove serve speaks protocol \(protocolVersion), the client \(version.protocol.map(String.init) ?? "an older one")")
        }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: line)
        } catch {
            return refuse(.badRequest, "bad request: \(Self.describe(error))")
        }
        let asked = admission.seen(from: envelope.admission)
        guard asked == admission else {
            return refuse(.embedding, "the running trove serve embeds with \(admission), this search asked for \(asked)")
        }
        do {
            try envelope.request.validate()
        } catch {
            return refuse(.badRequest, "bad request: \(String(describing: error))")
        }
        return .success(envelope)
    }

    /// A decoding error in one line, without Foundation's long debug text.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return field.isEmpty ? "not a valid request" : "bad value for '\(field)'"
        default: return "not a valid request"
        }
    }
}
