import Foundation
import TroveIngest

/// Where a hit in an HTML page links to: the `id` of the nearest heading above the passage that has one, read from
/// the page's stored structure, so that `uri` opens the page at its section (`page.html#locking`).
enum HeadingAnchors {
    /// The anchored headings of a stored structure (JSON), in line order; none when it cannot be read.
    static func headings(inStructure structure: String) -> [ExtractedDocument.Heading] {
        guard let shape = try? JSONDecoder().decode(ExtractedDocument.self, from: Data(structure.utf8)) else {
            return []
        }
        return shape.headings.filter { $0.anchor != nil }
    }

    /// The anchor for a passage starting at 1-based line `startLine`, given `headings` in line order.
    static func anchor(forLine startLine: Int, in headings: [ExtractedDocument.Heading]) -> String? {
        headings.last { $0.line <= startLine - 1 }?.anchor
    }
}
