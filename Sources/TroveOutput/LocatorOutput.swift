import TroveKit
import TroveSystem

/// A passage's locator as scripts and agents read it: `{"kind": "page", "start": 4, "end": 5, "approximate": false,
/// "label": "p.4–5"}`. The one place that names its fields: `--json`, MCP's tools and `trove web` write it from here,
/// and MCP's output schema describes it from here, so the shapes cannot drift apart.
package enum LocatorOutput {
    /// The JSON object of `locator`.
    package static func json(_ locator: PassageLocator) -> JSON {
        [
            "kind": .string(locator.kind.rawValue), "start": .integer(Int64(locator.first)),
            "end": .integer(Int64(locator.last)), "approximate": .bool(locator.approximate),
            "label": .string(locator.label),
        ]
    }

    /// Its JSON Schema, for MCP's `search` tool.
    package static let schema: JSON = [
        "type": "object",
        "description": "where a passage of a PDF, DOCX, … lies in the original",
        "properties": [
            "kind": ["type": "string", "enum": .array(LocatorKind.allCases.map { .string($0.rawValue) })],
            "start": ["type": "integer", "description": "1-based number where the passage starts"],
            "end": ["type": "integer", "description": "1-based number where it ends"],
            "approximate": ["type": "boolean", "description": "pages from a word processor's layout (DOCX, ODT)"],
            "label": ["type": "string", "description": "as text output shows it: p.4–5, ≈p.2, slide 3, msgs 4–6"],
        ],
        "required": ["kind", "start", "end", "approximate", "label"],
    ]
}
