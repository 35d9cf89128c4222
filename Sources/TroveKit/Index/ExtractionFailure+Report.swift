import TroveIngest

extension ExtractionFailure.Kind {
    /// The outcome as the summary counts it: `encrypted`, `no text layer`, `damaged`, `timeout`, …
    var counted: String {
        switch self {
        case .encrypted: "encrypted"
        case .noTextLayer: "no text layer"
        case .damaged: "damaged"
        case .timeout: "timeout"
        case .outOfMemory: "out of memory"
        case .crashed: "extractor crashed"
        case .toolMissing: "tool missing"
        }
    }

    /// Whether an unchanged file with this outcome is remembered and not tried again: not a missing tool, which
    /// installing it mends without any change to the file.
    var remembered: Bool { self != .toolMissing }
}

extension ExtractionFailure {
    /// The warning line for `path`: `skipped report.pdf: encrypted — a password is needed`.
    func warning(path: String) -> String {
        "skipped \(path): \(kind.counted)" + (detail.isEmpty ? "" : " — \(detail)")
    }
}

extension ExtractedDocument.Truncation {
    /// The warning line for `path`: `big.mbox: indexed the first 4012 of 10000 messages; the other 5988 pass the
    /// 16 MiB text limit (split the file to index them)`.
    func warning(path: String) -> String {
        let noun = kind == .message ? "messages" : "\(kind.rawValue)s"
        return "\(path): indexed the first \(kept) of \(total) \(noun); the other \(total - kept) pass \(limit)"
            + " (split the file to index them)"
    }
}
