/// How a vector search scans the index's vectors: exactly in float32, or through an int8 copy (a quarter of the
/// bytes) whose best candidates are rescored exactly, so the scores are exact and only the candidate set is
/// approximate (recall@10 against exact search: BENCHMARKS.md#int8-scan).
public enum VectorScan: String, Sendable, Codable, CaseIterable {
    /// The int8 copy where it saves CPU (`AutomaticScan`): a process that keeps the vectors for many searches, on
    /// an index of at least `AutomaticScan.defaultMinimumFloats`; the exact scan elsewhere.
    case automatic
    /// The exact float32 scan (`trove search --exact`).
    case exact
    /// The int8 copy, built on first use when this process has none (`trove search --int8`).
    case int8
}

/// When `VectorScan.automatic` takes the int8 copy. The copy is built once per process (a pass over the matrix)
/// and held, a quarter of the matrix's memory; a one-shot `trove search` would pay that build for one query, more
/// than the exact scan it replaces, so only a warm process (`TroveIndex.warmUp`: `trove serve`, `trove mcp`,
/// `trove web`, and a `trove search` answered by a running `trove serve`) uses it.
package struct AutomaticScan: Sendable, Equatable {
    /// Rows × dimension from which the int8 scan with rescoring costs about half the exact float32 kernel's CPU per
    /// query and repays its copy's build within ~50 queries: 30k × 384 (15k × 768). At 10k–20k × 384 it saved
    /// 10–26 % and took 120–175 queries to repay (BENCHMARKS.md#int8-scan).
    package static let defaultMinimumFloats = 30_000 * 384

    /// The smallest matrix, in floats, that `automatic` scans through the int8 copy.
    package var minimumFloats = AutomaticScan.defaultMinimumFloats
    /// Whether this process keeps the vectors for many searches.
    package var warm = false

    package init(minimumFloats: Int = AutomaticScan.defaultMinimumFloats, warm: Bool = false) {
        self.minimumFloats = minimumFloats
        self.warm = warm
    }

    /// Whether a search asking for `scan` over a matrix of `floats` floats goes through the int8 copy.
    package func usesInt8(_ scan: VectorScan, floats: Int) -> Bool {
        switch scan {
        case .exact: false
        case .int8: true
        case .automatic: warm && floats >= minimumFloats
        }
    }
}
