import Foundation
import TroveSystem

/// The responses `trove web` builds, each with the headers that keep a browser strict about them.
enum WebResponses {
    /// Scripts, styles and images only from this server, no inline script or style, no framing, nothing sent
    /// elsewhere: a document that smuggles markup into the page still cannot run or load anything.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The headers on every response.
    static let common: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    /// `value` as JSON.
    static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: common + [("Content-Type", "application/json")],
            body: .bytes(value.encoded()))
    }

    /// `{"error": message}` with `status`.
    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": .string(message)], status: status)
    }

    /// A file of the page.
    static func asset(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: common + [("Content-Type", type)], body: .bytes(Data(text.utf8)))
    }
}
