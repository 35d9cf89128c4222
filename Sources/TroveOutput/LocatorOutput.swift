import TroveKit

/// A passage's locator as scripts read it: `{"kind": "page", "start": 4, "end": 5, "approximate": false}`.
package struct LocatorOutput: Encodable, Equatable {
    /// `page`, `slide`, `message` or `cell`.
    package var kind: String
    /// 1-based number where the passage starts.
    package var start: Int
    /// 1-based number where it ends.
    package var end: Int
    /// True for pages from a word processor's last layout (DOCX, ODT).
    package var approximate: Bool

    /// The JSON shape of `locator`.
    package init(_ locator: PassageLocator) {
        kind = locator.kind.rawValue
        start = locator.first
        end = locator.last
        approximate = locator.approximate
    }
}
