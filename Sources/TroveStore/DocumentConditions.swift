/// Which documents a search may return, in the form a store can evaluate itself: PostgreSQL turns it into a
/// `WHERE` clause (`PostgresStore+Filters.swift`), so a filter never travels as a list of every allowed chunk id;
/// `matches` is the same rule in Swift (a snapshot store's row mask, and the reference the tests compare with).
/// Conditions combine with AND; the values of one condition with OR. nil (or empty `extensions`) allows all.
package struct DocumentConditions: Sendable, Equatable {
    /// Absolute paths of the indexed folders allowed.
    package var rootPaths: [String]?
    /// File extensions, lowercase and without the dot.
    package var extensions: [String]
    /// Only documents modified at or after this time (nanoseconds since 1970).
    package var modifiedSince: Int64?
    /// Only documents modified before this time (nanoseconds since 1970).
    package var modifiedBefore: Int64?
    /// Documents chosen by a condition only Swift evaluates (path globs: see `SearchFilter`).
    package var documentIDs: Set<Int64>?

    /// Conditions from their parts; `extensions` are normalised (a leading dot dropped, lowercased).
    package init(
        rootPaths: [String]? = nil, extensions: [String] = [], modifiedSince: Int64? = nil,
        modifiedBefore: Int64? = nil, documentIDs: Set<Int64>? = nil
    ) {
        self.rootPaths = rootPaths
        self.extensions = extensions.map(Self.normalizedExtension)
        self.modifiedSince = modifiedSince
        self.modifiedBefore = modifiedBefore
        self.documentIDs = documentIDs
    }

    /// True when no document can pass (an empty list of roots or of chosen documents).
    package var allowsNothing: Bool { rootPaths?.isEmpty == true || documentIDs?.isEmpty == true }

    /// Whether `document` passes every condition.
    package func matches(_ document: SearchableDocument) -> Bool {
        if let since = modifiedSince, document.modifiedNanoseconds < since { return false }
        if let before = modifiedBefore, document.modifiedNanoseconds >= before { return false }
        if !extensions.isEmpty {
            guard let ext = Self.fileExtension(document.path), extensions.contains(ext) else { return false }
        }
        if let rootPaths, !rootPaths.contains(document.rootPath) { return false }
        if let documentIDs, !documentIDs.contains(document.id) { return false }
        return true
    }

    /// The lowercased extension of the path's file name: after its last dot, nil when the name has no dot or
    /// only a leading one (`.bashrc`).
    package static func fileExtension(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    /// `.MD` → `md`.
    package static func normalizedExtension(_ text: String) -> String {
        (text.hasPrefix(".") ? String(text.dropFirst()) : text).lowercased()
    }
}

/// Which passages a search may rank: listed by chunk id (a snapshot store's row mask, or a retriever's winners
/// rescored), or as document conditions a store evaluates inside its own queries (PostgreSQL's `WHERE` clause).
package enum CandidateRestriction: Sendable {
    case chunks([Int64])
    case documents(DocumentConditions)

    /// True when nothing can pass.
    package var allowsNothing: Bool {
        switch self {
        case .chunks(let ids): ids.isEmpty
        case .documents(let conditions): conditions.allowsNothing
        }
    }
}
