import Foundation

/// JSON for scripts: stable key order, no escaped slashes in paths.
package enum JSONOutput {
    /// `value` as one line of JSON.
    package static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
