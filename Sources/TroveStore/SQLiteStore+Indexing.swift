import CSQLite

/// What the indexer needs beyond `SQLiteStore`'s core: vector reuse by chunk hash, forgetting roots, compaction,
/// re-embedding in place, and a full dump of the contents to compare two indexes.
extension SQLiteStore {
    // MARK: Reuse

    /// A stored vector for each of `hashes` that some chunk with that content hash has (any one of them).
    /// Vectors come back decoded and validated against the manifest's dimension.
    package func vectors(forContentHashes hashes: [String]) throws -> [String: [Float]] {
        guard !hashes.isEmpty else { return [:] }
        guard let dimension = try manifestDimensionValue(), dimension > 0 else { return [:] }
        // One JSON array parameter for any number of hashes; the index on chunks(content_hash) serves each lookup.
        var list = "["
        for (position, hash) in hashes.enumerated() {
            if position > 0 { list += "," }
            list += "\"" + hash + "\""  // hex digits only: nothing to escape
        }
        list += "]"
        return try database.withStatement(
            """
            SELECT chunks.content_hash, vectors.chunk_id, vectors.embedding FROM chunks
            JOIN vectors ON vectors.chunk_id = chunks.id
            WHERE chunks.content_hash IN (SELECT value FROM json_each(?))
            """
        ) { statement in
            try statement.bind(list, at: 1)
            var found: [String: [Float]] = [:]
            while try statement.step() {
                let hash = statement.string(0)
                if found[hash] != nil { continue }
                var vector = [Float](repeating: 0, count: dimension)
                try vector.withUnsafeMutableBufferPointer { buffer in
                    try VectorBlob.decode(
                        statement.blobBytes(2), chunkID: statement.int64(1), dimension: dimension,
                        into: buffer.baseAddress!)
                }
                found[hash] = vector
            }
            return found
        }
    }

    /// The manifest's dimension, nil when none was written.
    func manifestDimensionValue() throws -> Int? {
        try database.withStatement("SELECT value FROM manifest WHERE key = 'dimension'") { statement in
            guard try statement.step() else { return nil }
            return Int(statement.string(0))
        }
    }

    // MARK: Roots

    /// Removes the root at `path` (absolute) with all its documents, chunks, vectors and keyword rows.
    /// Returns how many documents and chunks went with it, or nil when the index has no such root.
    package func forgetRoot(path: String) throws -> (documents: Int, chunks: Int)? {
        try database.transaction {
            guard
                let id = try database.withStatement(
                    "SELECT id FROM roots WHERE path = ?",
                    { statement in
                        try statement.bind(path, at: 1)
                        return try statement.step() ? statement.int64(0) : nil
                    })
            else { return nil }
            let counts = try database.withStatement(
                """
                SELECT count(DISTINCT documents.id), count(chunks.id) FROM documents
                LEFT JOIN chunks ON chunks.document_id = documents.id WHERE documents.root_id = ?
                """
            ) { statement in
                try statement.bind(id, at: 1)
                try statement.step()
                return (statement.int(0), statement.int(1))
            }
            // The cascade removes documents, then chunks (whose trigger removes FTS rows) and vectors.
            try database.withStatement("DELETE FROM roots WHERE id = ?") { statement in
                try statement.bind(id, at: 1)
                try statement.run()
            }
            return (documents: counts.0, chunks: counts.1)
        }
    }

    // MARK: Compaction

    /// Rewrites the file without free pages (after large deletions) and truncates the WAL.
    /// Needs no other connection to be writing; readers may keep reading.
    package func vacuum() throws {
        try checkpoint()
        // Rebuilding the FTS index packs its b-tree segments too; plain VACUUM would keep their slack.
        try database.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
        try database.execute("INSERT INTO chunks_cjk (chunks_cjk) VALUES ('optimize')")
        try database.execute("VACUUM")
        try checkpoint()
    }

    /// Bytes of the database file plus its WAL, as `statistics()` counts them.
    package var bytesOnDisk: Int64 { FileSystem.size(path) + FileSystem.size(path + "-wal") }

    // MARK: Re-embedding in place

    /// Creates the staging table that holds new vectors until a re-embed is complete (kept across runs, so an
    /// interrupted re-embed resumes); `fresh` empties it first (a different model than the staged one).
    package func beginReembedding(fresh: Bool) throws {
        try database.transaction {
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS reembed_vectors (
                    chunk_id INTEGER PRIMARY KEY,
                    embedding BLOB NOT NULL
                ) STRICT;
                CREATE TABLE IF NOT EXISTS reembed_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
                """)
            if fresh { try database.execute("DELETE FROM reembed_vectors; DELETE FROM reembed_state;") }
        }
    }

    /// A value remembered for an unfinished re-embed (e.g. the model it embeds with), nil when none.
    package func reembedState(_ key: String) throws -> String? {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'reembed_state'") == 1 else {
            return nil
        }
        return try database.withStatement("SELECT value FROM reembed_state WHERE key = ?") { statement in
            try statement.bind(key, at: 1)
            return try statement.step() ? statement.string(0) : nil
        }
    }

    /// Remembers a value for the re-embed in progress.
    package func setReembedState(_ key: String, _ value: String) throws {
        try database.withStatement("INSERT OR REPLACE INTO reembed_state (key, value) VALUES (?, ?)") { statement in
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }

    /// Up to `limit` chunks with no staged vector yet, in id order, after `afterID`.
    package func chunksToReembed(afterID: Int64, limit: Int) throws -> [ChunkForEmbedding] {
        try database.withStatement(
            """
            SELECT chunks.id, chunks.heading, chunks.text FROM chunks
            WHERE chunks.id > ? AND chunks.id NOT IN (SELECT chunk_id FROM reembed_vectors)
            ORDER BY chunks.id LIMIT ?
            """
        ) { statement in
            try statement.bind(afterID, at: 1)
            try statement.bind(limit, at: 2)
            var chunks: [ChunkForEmbedding] = []
            while try statement.step() {
                chunks.append(
                    ChunkForEmbedding(id: statement.int64(0), heading: statement.string(1), text: statement.string(2)))
            }
            return chunks
        }
    }

    /// Stages new vectors (call inside `inTransaction`); they replace the live ones only in `finishReembedding`.
    package func stageVectors(_ vectors: [(chunkID: Int64, vector: [Float])]) throws {
        let insert = try database.cachedStatement(
            "INSERT OR REPLACE INTO reembed_vectors (chunk_id, embedding) VALUES (?, ?)")
        defer { insert.reset() }
        for (chunkID, vector) in vectors {
            guard vector.withUnsafeBufferPointer(VectorBlob.isFinite) else {
                throw StoreError(code: .corruptVector, message: "chunk \(chunkID) got a non-finite value in its vector")
            }
            insert.reset()
            try insert.bind(chunkID, at: 1)
            try VectorBlob.withBytes(of: vector) { try insert.bind(blob: $0, at: 2) }
            try insert.run()
        }
    }

    /// Swaps the staged vectors in for every chunk, writes `manifest` and adds one to the generation, in one
    /// transaction; then drops the staging tables. Refused while any chunk has no staged vector (added meanwhile
    /// by another writer): swapping then would leave it without a vector.
    package func finishReembedding(manifest: IndexManifest) throws {
        try database.transaction {
            let unstaged =
                try database.scalarInt(
                    "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM reembed_vectors)") ?? 0
            guard unstaged == 0 else {
                throw StoreError.reembedIncomplete(path, unstaged: unstaged)
            }
            let generation = try vectorGeneration()
            try database.execute(
                """
                DELETE FROM reembed_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks);
                DELETE FROM vectors;
                INSERT INTO vectors (chunk_id, embedding) SELECT chunk_id, embedding FROM reembed_vectors;
                DROP TABLE reembed_vectors;
                DROP TABLE reembed_state;
                """)
            try writeManifest(manifest)
            try setVectorGeneration(generation + 1)
        }
    }

    // MARK: Comparing indexes

    /// Every document and chunk with its vector bytes, in (root, path, ordinal) order — ids left out, since they
    /// differ between runs that produce the same index.
    package func contentRows() throws -> [ContentRow] {
        try database.withStatement(
            """
            SELECT roots.path, documents.path, documents.content_hash, coalesce(chunks.ordinal, -1),
                   coalesce(chunks.start_line, 0), coalesce(chunks.end_line, 0), coalesce(chunks.heading, ''),
                   coalesce(chunks.text, ''), coalesce(chunks.content_hash, ''), vectors.embedding
            FROM documents JOIN roots ON roots.id = documents.root_id
            LEFT JOIN chunks ON chunks.document_id = documents.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            ORDER BY roots.path, documents.path, chunks.ordinal
            """
        ) { statement in
            var rows: [ContentRow] = []
            while try statement.step() {
                rows.append(
                    ContentRow(
                        root: statement.string(0), path: statement.string(1), documentHash: statement.string(2),
                        ordinal: statement.int(3), startLine: statement.int(4), endLine: statement.int(5),
                        heading: statement.string(6), text: statement.string(7), chunkHash: statement.string(8),
                        vector: Array(statement.blobBytes(9))))
            }
            return rows
        }
    }

    /// Documents whose chunks are not exactly ordinals 0..<n each with a vector: what a half-written document
    /// would look like. Empty for a consistent index.
    package func halfWrittenDocuments() throws -> [String] {
        try database.withStatement(
            """
            SELECT documents.path FROM documents
            LEFT JOIN chunks ON chunks.document_id = documents.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            GROUP BY documents.id
            HAVING count(chunks.id) != count(vectors.chunk_id)
                OR (count(chunks.id) > 0 AND (min(chunks.ordinal) != 0 OR max(chunks.ordinal) != count(chunks.id) - 1))
            ORDER BY documents.path
            """
        ) { statement in
            var paths: [String] = []
            while try statement.step() { paths.append(statement.string(0)) }
            return paths
        }
    }
}
