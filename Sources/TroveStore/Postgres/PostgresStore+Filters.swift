/// Search filters as SQL: the restriction of a PostgreSQL search is part of its query, as conditions on the
/// documents table, so a filter costs one `WHERE` clause however many passages it keeps (not an array of every
/// allowed chunk id built in Swift and sent with each query).
extension CandidateRestriction {
    /// A `WHERE` term true for the allowed chunks: over the chunk id column `chunk`, or, for conditions and when
    /// the table has one, its document id column `document` (no join with `chunks` then); its parameters are
    /// numbered from `$first`.
    func sql(chunk: String, document: String? = nil, first: Int) -> (sql: String, parameters: [String?]) {
        switch self {
        case .chunks(let ids):
            return ("\(chunk) = ANY($\(first)::bigint[])", [PostgresArray.ids(ids)])
        case .documents(let conditions):
            let (terms, parameters) = Self.terms(conditions, first: first)
            if let document { return ("\(document) IN (SELECT d.id FROM documents d WHERE \(terms))", parameters) }
            return (
                "\(chunk) IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE \(terms))",
                parameters
            )
        }
    }

    /// `conditions` as a boolean expression over the documents row `d` (`true` when it has none), with its
    /// parameters. Each condition is written to give exactly what `DocumentConditions.matches` gives:
    /// - the extension is the file name's text after its last dot, a dot that is not the name's first character
    ///   (`[^/]\.` before it), lowercased. `lower()` folds as the database's collation does; Swift's `lowercased()`
    ///   folds all of Unicode: they agree on every ASCII extension, and on others where the collation is a UTF-8 one.
    /// - roots by their absolute path, modification times in nanoseconds, as stored.
    static func terms(_ conditions: DocumentConditions, first: Int) -> (String, [String?]) {
        var terms: [String] = []
        var parameters: [String?] = []
        func parameter(_ value: String, _ type: String) -> String {
            parameters.append(value)
            return "$\(first + parameters.count - 1)::\(type)"
        }
        if let since = conditions.modifiedSince { terms.append("d.mtime_ns >= \(parameter(String(since), "bigint"))") }
        if let before = conditions.modifiedBefore {
            terms.append("d.mtime_ns < \(parameter(String(before), "bigint"))")
        }
        if !conditions.extensions.isEmpty {
            terms.append(
                "lower(substring(d.path from '[^/]\\.([^./]*)$')) = ANY(\(parameter(PostgresArray.text(conditions.extensions), "text[]")))")
        }
        if let roots = conditions.rootPaths {
            terms.append("d.root_id IN (SELECT id FROM roots WHERE path = ANY(\(parameter(PostgresArray.text(roots), "text[]"))))")
        }
        if let documents = conditions.documentIDs {
            terms.append("d.id = ANY(\(parameter(PostgresArray.ids(documents.sorted()), "bigint[]")))")
        }
        return (terms.isEmpty ? "true" : terms.joined(separator: " AND "), parameters)
    }
}

extension PostgresStore {
    /// The documents meeting `conditions`, in id order, at most `limit` when given.
    package func searchableDocuments(matching conditions: DocumentConditions, limit: Int?) throws
        -> [SearchableDocument]
    {
        guard !conditions.allowsNothing, limit.map({ $0 > 0 }) ?? true else { return [] }
        let (terms, parameters) = CandidateRestriction.terms(conditions, first: 1)
        let rows = try connection.query(
            """
            SELECT d.id, roots.path, d.path, d.mtime_ns FROM documents d JOIN roots ON roots.id = d.root_id
            WHERE \(terms) ORDER BY d.id\(limit.map { " LIMIT \($0)" } ?? "")
            """, parameters)
        return (0..<rows.count).map {
            SearchableDocument(
                id: rows.int64($0, 0), rootPath: rows.string($0, 1), path: rows.string($0, 2),
                modifiedNanoseconds: rows.int64($0, 3))
        }
    }

    /// How many chunks a restriction allows (the share an HNSW search must widen `ef_search` by).
    func allowedChunkCount(_ restriction: CandidateRestriction) throws -> Int {
        switch restriction {
        case .chunks(let ids): return ids.count
        case .documents(let conditions):
            let (terms, parameters) = CandidateRestriction.terms(conditions, first: 1)
            return Int(
                try connection.scalar(
                    "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE \(terms)",
                    parameters) ?? "0") ?? 0
        }
    }
}
