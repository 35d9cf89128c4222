#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An index in a PostgreSQL database with pgvector: a team's shared index, many writers of different folders and
/// many searchers at once. Behind the same protocol as the SQLite file; ranks vectors in the server (exact
/// `ORDER BY embedding <=> $1`, or HNSW above a size) with filters in the `WHERE` clause.
/// Not thread-safe: one owner uses it synchronously, like `SQLiteStore`.
package final class PostgresStore {
    /// The URL without its password.
    package let location: String
    /// The URL's parts: connection, schema, HNSW policy.
    package let url: PostgresURL
    let connection: PostgresConnection
    /// How many migrations this open applied (0 when the schema was already current).
    let appliedMigrations: Int

    /// Connects and opens the index in the URL's schema, creating and migrating it when `createIfMissing`. Throws
    /// `.missingIndex` when the schema holds no index and `createIfMissing` is false, `.unavailable` when the
    /// server cannot be reached.
    package init(url: String, createIfMissing: Bool) throws {
        let parsed = try PostgresURL(url)
        self.url = parsed
        location = PostgresURL.redacted(url)
        connection = try PostgresConnection(url: parsed.connection, shown: location)
        // Plain names only (checked by PostgresURL): safe to splice. `public` keeps pgvector's type in reach.
        try connection.execute("SET search_path TO \(parsed.schema), public")
        if try !PostgresSchema.exists(connection, schema: parsed.schema) {
            guard createIfMissing else { throw StoreError.missingIndex(path: location) }
        } else if try Int(connection.scalar("SELECT max(version) FROM schema_version") ?? "0") ?? 0
            == PostgresSchema.currentVersion
        {
            appliedMigrations = 0
            return
        }
        appliedMigrations = try PostgresSchema.migrate(connection, schema: parsed.schema)
    }

    // MARK: Transactions

    /// Runs `body` in one transaction (a savepoint when nested); the outermost one bumps the data version
    /// before it commits, so readers notice.
    @discardableResult
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(beforeCommit: bumpDataVersion, body)
    }

    /// A write outside any transaction runs in one of its own, so the data version moves with it.
    func writing<T>(_ body: () throws -> T) throws -> T {
        connection.depth > 0 ? try body() : try inTransaction(body)
    }

    private func bumpDataVersion() throws {
        try connection.query("UPDATE state SET value = value + 1 WHERE key = 'data_version'")
    }

    // MARK: Manifest

    /// The fingerprint, or nil for a new index.
    package func manifest() throws -> IndexManifest? {
        let rows = try connection.query("SELECT key, value FROM manifest")
        var values: [String: String] = [:]
        for row in 0..<rows.count { values[rows.string(row, 0)] = rows.string(row, 1) }
        return try ManifestText.decode(values, damaged: damaged)
    }

    /// Replaces every manifest key (the generation survives) and types the vector column `vector(d)` while it is
    /// empty. The table lock keeps two new indexers from interleaving their rewrites.
    package func writeManifest(_ manifest: IndexManifest) throws {
        let pairs = ManifestText.encode(manifest)
        try inTransaction {
            try connection.execute("LOCK TABLE manifest IN SHARE ROW EXCLUSIVE MODE")
            try connection.query(ManifestText.deleteFingerprint)
            for (key, value) in pairs {
                try connection.query("INSERT INTO manifest (key, value) VALUES ($1, $2)", [key, value])
            }
            try typeVectorColumn(dimension: manifest.dimension)
        }
    }

    /// Makes `vectors.embedding` a `vector(dimension)` when it is not yet one and holds no row.
    func typeVectorColumn(dimension: Int) throws {
        guard dimension > 0 else { return }
        let type = try connection.scalar(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                + "WHERE attrelid = 'vectors'::regclass AND attname = 'embedding'")
        guard type != "vector(\(dimension))", try connection.scalar("SELECT EXISTS (SELECT 1 FROM vectors)") == "f"
        else { return }
        try dropHNSW()
        try connection.execute("ALTER TABLE vectors ALTER COLUMN embedding TYPE vector(\(dimension))")
    }

    /// The manifest's dimension, nil when none was written.
    func manifestDimension() throws -> Int? {
        try connection.scalar("SELECT value FROM manifest WHERE key = 'dimension'").flatMap { Int($0) }
    }

    /// An index whose contents cannot be used.
    func damaged(_ reason: String) -> StoreError {
        StoreError(
            code: .postgres("XX001"),
            message: "index \(location) is damaged: \(reason) — rebuild it with trove index --reembed")
    }

    // MARK: Roots and documents

    /// The id of the root folder `path`, inserting it when new (another writer may insert it at the same time).
    package func rootID(forPath path: String) throws -> Int64 {
        try writing {
            try connection.query(
                "INSERT INTO roots (path, added_at) VALUES ($1, $2) ON CONFLICT (path) DO NOTHING",
                [path, String(time(nil))])
            return Int64(try connection.scalar("SELECT id FROM roots WHERE path = $1", [path]) ?? "0") ?? 0
        }
    }

    /// Every root with its document count, ordered by path.
    package func roots() throws -> [IndexRoot] {
        let rows = try connection.query(
            """
            SELECT roots.id, roots.path, count(documents.id) FROM roots
            LEFT JOIN documents ON documents.root_id = roots.id
            GROUP BY roots.id ORDER BY roots.path COLLATE "C"
            """)
        return (0..<rows.count).map {
            IndexRoot(id: rows.int64($0, 0), path: rows.string($0, 1), documentCount: rows.int($0, 2))
        }
    }

    /// The documents stored under a root, keyed by their root-relative path.
    package func documents(inRoot rootID: Int64) throws -> [String: StoredDocument] {
        let rows = try connection.query(
            "SELECT id, path, size, mtime_ns, content_hash FROM documents WHERE root_id = $1", [String(rootID)])
        var documents: [String: StoredDocument] = [:]
        for row in 0..<rows.count {
            documents[rows.string(row, 1)] = StoredDocument(
                id: rows.int64(row, 0), size: rows.int64(row, 2), modifiedNanoseconds: rows.int64(row, 3),
                contentHash: rows.string(row, 4))
        }
        return documents
    }

    /// Replaces the document at (rootID, path) with these chunks and vectors; validated first, then written in
    /// one savepoint, so a failure writes nothing of it.
    @discardableResult
    package func replaceDocument(_ document: NewDocument, chunks: [NewChunk]) throws -> Int64 {
        try NewChunk.validate(chunks, of: document.path, dimension: try manifestDimension())
        return try inTransaction {
            try connection.query(
                "DELETE FROM documents WHERE root_id = $1 AND path = $2", [String(document.rootID), document.path])
            let id =
                try connection.scalar(
                    """
                    INSERT INTO documents (root_id, path, size, mtime_ns, content_hash, indexed_at, format,
                                           extractor, structure)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id
                    """,
                    [
                        String(document.rootID), document.path, String(document.size),
                        String(document.modifiedNanoseconds), document.contentHash, String(time(nil)),
                        document.extraction?.format, document.extraction?.extractor, document.extraction?.structure,
                    ]) ?? "0"
            if document.extraction != nil {
                try connection.query("DELETE FROM extraction_failures WHERE content_hash = $1", [document.contentHash])
            }
            // One round trip per chunk: the chunk and its vector in one statement.
            for chunk in chunks {
                try connection.query(
                    """
                    WITH chunk AS (
                        INSERT INTO chunks (document_id, ordinal, start_line, end_line, heading, text, content_hash,
                                            locator_kind, locator_first, locator_last, locator_approximate)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $10, $11, $12) RETURNING id)
                    INSERT INTO vectors (chunk_id, embedding) SELECT id, $8::vector FROM chunk
                    """,
                    [
                        id, String(chunk.ordinal), String(chunk.startLine), String(chunk.endLine), chunk.heading,
                        chunk.text, chunk.contentHash, PostgresVector.text(chunk.vector), chunk.locator?.kind,
                        chunk.locator.map { String($0.first) }, chunk.locator.map { String($0.last) },
                        chunk.locator?.approximate == true ? "true" : "false",
                    ])
            }
            return Int64(id) ?? 0
        }
    }

    /// Removes a document with its chunks and vectors (the keyword column goes with its row).
    package func deleteDocument(id: Int64) throws {
        try writing { _ = try connection.query("DELETE FROM documents WHERE id = $1", [String(id)]) }
    }

    /// Records a new size and mtime for a document whose content did not change.
    package func updateDocumentStat(id: Int64, size: Int64, modifiedNanoseconds: Int64) throws {
        try writing {
            _ = try connection.query(
                "UPDATE documents SET size = $1, mtime_ns = $2 WHERE id = $3",
                [String(size), String(modifiedNanoseconds), String(id)])
        }
    }

    /// A stored vector for each of `hashes` that some chunk with that content hash has.
    package func vectors(forContentHashes hashes: [String]) throws -> [String: [Float]] {
        guard !hashes.isEmpty, let dimension = try manifestDimension(), dimension > 0 else { return [:] }
        let rows = try connection.query(
            """
            SELECT DISTINCT ON (chunks.content_hash) chunks.content_hash, vectors.chunk_id, vectors.embedding::text
            FROM chunks JOIN vectors ON vectors.chunk_id = chunks.id
            WHERE chunks.content_hash = ANY($1::text[])
            """, [PostgresArray.text(hashes)])
        var found: [String: [Float]] = [:]
        for row in 0..<rows.count {
            found[rows.string(row, 0)] = try PostgresVector.parse(
                rows.string(row, 2), chunkID: rows.int64(row, 1), dimension: dimension)
        }
        return found
    }

    /// Removes the root at `path` with everything under it; nil when the index has no such root.
    package func forgetRoot(path: String) throws -> (documents: Int, chunks: Int)? {
        try inTransaction {
            guard let id = try connection.scalar("SELECT id FROM roots WHERE path = $1", [path]) else { return nil }
            let counts = try connection.query(
                """
                SELECT count(DISTINCT documents.id), count(chunks.id) FROM documents
                LEFT JOIN chunks ON chunks.document_id = documents.id WHERE documents.root_id = $1
                """, [id])
            try connection.query("DELETE FROM roots WHERE id = $1", [id])
            return (documents: counts.int(0, 0), chunks: counts.int(0, 1))
        }
    }

    /// The document `path` of the root `rootPath` with its chunks; nil when absent. One statement, so it reads one
    /// snapshot while writers commit.
    package func documentText(rootPath: String, path: String) throws -> StoredDocumentText? {
        let rows = try connection.query(
            """
            SELECT documents.mtime_ns, documents.indexed_at, chunks.id, chunks.start_line, chunks.end_line,
                   chunks.heading, chunks.text, chunks.locator_kind, chunks.locator_first, chunks.locator_last,
                   chunks.locator_approximate, documents.format, documents.extractor, documents.structure
            FROM documents JOIN roots ON roots.id = documents.root_id
            LEFT JOIN chunks ON chunks.document_id = documents.id
            WHERE roots.path = $1 AND documents.path = $2
            ORDER BY chunks.start_line, chunks.id
            """, [rootPath, path])
        guard rows.count > 0 else { return nil }
        let chunks = (0..<rows.count).compactMap { row -> StoredChunk? in
            guard rows.optionalString(row, 2) != nil else { return nil }
            return StoredChunk(
                id: rows.int64(row, 2), rootPath: rootPath, path: path, startLine: rows.int(row, 3),
                endLine: rows.int(row, 4), heading: rows.string(row, 5), text: rows.string(row, 6),
                locator: rows.locator(row, 7))
        }
        var extraction: StoredExtraction?
        if let format = rows.optionalString(0, 11), let extractor = rows.optionalString(0, 12),
            let structure = rows.optionalString(0, 13)
        {
            extraction = StoredExtraction(format: format, extractor: extractor, structure: structure)
        }
        return StoredDocumentText(
            rootPath: rootPath, path: path, modifiedNanoseconds: rows.int64(0, 0), indexedAt: rows.int64(0, 1),
            chunks: chunks, extraction: extraction)
    }

    /// When a document was last written (seconds since 1970); nil when the index holds none.
    package func lastIndexedAt() throws -> Int64? {
        try connection.scalar("SELECT max(indexed_at) FROM documents").flatMap { Int64($0) }
    }
}
