import CSQLite

/// One indexed document's passages, as `get` reads them back.
package struct StoredDocumentText: Sendable, Equatable {
    /// Absolute path of the indexed folder.
    package var rootPath: String
    /// Path relative to the root.
    package var path: String
    /// Modification time in nanoseconds since 1970 when indexed.
    package var modifiedNanoseconds: Int64
    /// Seconds since 1970 when the document was last written to the index.
    package var indexedAt: Int64
    /// Its chunks, by start line (they may overlap).
    package var chunks: [StoredChunk]
    /// How a document that is not text was read (its format and structure); nil for a text file.
    package var extraction: StoredExtraction? = nil
}

extension SQLiteStore {
    /// SQLite's `PRAGMA data_version`: changes whenever another connection commits to the file, and costs no
    /// read of any table. A warm reader compares it before each search and looks closer only when it moved.
    package func dataVersion() throws -> Int64 {
        try database.scalarInt("PRAGMA data_version") ?? 0
    }

    /// The document `path` of the root `rootPath` with its chunks; nil when the index has no such document.
    package func documentText(rootPath: String, path: String) throws -> StoredDocumentText? {
        try database.transaction(deferred: true) {
            let head = try database.withStatement(
                """
                SELECT documents.id, documents.mtime_ns, documents.indexed_at, documents.format, documents.extractor,
                       documents.structure
                FROM documents
                JOIN roots ON roots.id = documents.root_id WHERE roots.path = ? AND documents.path = ?
                """
            ) { statement -> (Int64, Int64, Int64, StoredExtraction?)? in
                try statement.bind(rootPath, at: 1)
                try statement.bind(path, at: 2)
                guard try statement.step() else { return nil }
                let extraction =
                    statement.isNull(3) || statement.isNull(4) || statement.isNull(5)
                    ? nil
                    : StoredExtraction(
                        format: statement.string(3), extractor: statement.string(4), structure: statement.string(5))
                return (statement.int64(0), statement.int64(1), statement.int64(2), extraction)
            }
            guard let (documentID, modified, indexedAt, extraction) = head else { return nil }
            let chunks = try database.withStatement(
                """
                SELECT id, start_line, end_line, heading, text, locator_kind, locator_first, locator_last,
                       locator_approximate
                FROM chunks WHERE document_id = ? ORDER BY start_line, id
                """
            ) { statement in
                try statement.bind(documentID, at: 1)
                var chunks: [StoredChunk] = []
                while try statement.step() {
                    chunks.append(
                        StoredChunk(
                            id: statement.int64(0), rootPath: rootPath, path: path, startLine: statement.int(1),
                            endLine: statement.int(2), heading: statement.string(3), text: statement.string(4),
                            locator: statement.locator(at: 5)))
                }
                return chunks
            }
            return StoredDocumentText(
                rootPath: rootPath, path: path, modifiedNanoseconds: modified, indexedAt: indexedAt, chunks: chunks,
                extraction: extraction)
        }
    }

    /// When a document was last written to the index (seconds since 1970); nil when it holds none.
    package func lastIndexedAt() throws -> Int64? {
        // max() of no rows is one NULL row, read as 0.
        let latest = try database.scalarInt("SELECT coalesce(max(indexed_at), 0) FROM documents") ?? 0
        return latest > 0 ? latest : nil
    }
}
