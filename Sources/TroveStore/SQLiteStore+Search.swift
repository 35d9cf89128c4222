import CSQLite

/// A document as search filters see it.
package struct SearchableDocument: Sendable, Equatable {
    /// Row id.
    package var id: Int64
    /// Absolute path of the indexed folder it belongs to.
    package var rootPath: String
    /// Path relative to the root.
    package var path: String
    /// Modification time in nanoseconds since 1970 when indexed.
    package var modifiedNanoseconds: Int64

    /// A document from its parts.
    package init(id: Int64, rootPath: String, path: String, modifiedNanoseconds: Int64) {
        self.id = id
        self.rootPath = rootPath
        self.path = path
        self.modifiedNanoseconds = modifiedNanoseconds
    }
}

extension SQLiteStore {
    /// Every document with its root and mtime, for evaluating search filters (no chunk text is read).
    package func searchableDocuments() throws -> [SearchableDocument] {
        try database.withStatement(
            """
            SELECT documents.id, roots.path, documents.path, documents.mtime_ns
            FROM documents JOIN roots ON roots.id = documents.root_id ORDER BY documents.id
            """
        ) { statement in
            var documents: [SearchableDocument] = []
            while try statement.step() {
                documents.append(
                    SearchableDocument(
                        id: statement.int64(0), rootPath: statement.string(1), path: statement.string(2),
                        modifiedNanoseconds: statement.int64(3)))
            }
            return documents
        }
    }

    /// The ids of every chunk of these documents, ascending.
    package func chunkIDs(inDocuments documentIDs: [Int64]) throws -> [Int64] {
        guard !documentIDs.isEmpty else { return [] }
        return try database.withStatement(
            "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY id"
        ) { statement in
            try statement.bind(Self.jsonList(documentIDs), at: 1)
            var ids: [Int64] = []
            while try statement.step() { ids.append(statement.int64(0)) }
            return ids
        }
    }

    /// The document id of each of these chunks; unknown chunk ids are absent.
    package func documentIDs(ofChunks chunkIDs: [Int64]) throws -> [Int64: Int64] {
        guard !chunkIDs.isEmpty else { return [:] }
        return try database.withStatement(
            "SELECT id, document_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))"
        ) { statement in
            try statement.bind(Self.jsonList(chunkIDs), at: 1)
            var documents: [Int64: Int64] = [:]
            while try statement.step() { documents[statement.int64(0)] = statement.int64(1) }
            return documents
        }
    }

    /// Ids as a JSON array, so one cached statement serves any number of them through `json_each`.
    static func jsonList(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}
