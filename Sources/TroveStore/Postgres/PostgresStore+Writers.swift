#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What keeps many processes on one PostgreSQL index consistent: advisory locks per folder, the data version and
/// the vector generation, and re-embedding through a staging table.
extension PostgresStore: IndexBackend {
    // MARK: Versions

    /// Bumped by every write transaction (`state.data_version`): one indexed row read per search.
    package func dataVersion() throws -> Int64 {
        Int64(try connection.scalar("SELECT value FROM state WHERE key = 'data_version'") ?? "0") ?? 0
    }

    /// The data version and generation: nothing is cached from the vectors on this store (the server ranks
    /// them), so any commit is a reason to re-read the manifest.
    package func contentVersion() throws -> [Int64] {
        [try dataVersion(), try vectorGeneration()]
    }

    /// How many times every vector was replaced at once.
    package func vectorGeneration() throws -> Int64 {
        guard let text = try connection.scalar("SELECT value FROM manifest WHERE key = 'generation'") else { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw damaged("its manifest's generation is \"\(text)\", not a number")
        }
        return value
    }

    /// Throws when the index was re-embedded since a writer read `expected` (call inside its transaction).
    package func checkGeneration(_ expected: Int64) throws {
        // A share lock on the manifest row: a re-embed's swap cannot commit between this check and our commit.
        let now = Int64(
            try connection.scalar("SELECT value FROM manifest WHERE key = 'generation' FOR SHARE") ?? "0") ?? 0
        guard now == expected else {
            throw StoreError(
                code: .concurrentChange,
                message: "index \(location) was re-embedded by another run while this one was writing "
                    + "(generation \(expected) became \(now)); nothing of this batch was saved — run the command again")
        }
    }

    // MARK: Writer locks

    /// Session-level advisory locks, released when the connection closes (a killed writer's session ends, and the
    /// server drops its locks): a shared lock on the index plus an exclusive one per folder, so writers of
    /// different folders run at once; `roots` empty takes the index's lock exclusively (a re-embed), which waits
    /// for no one and excludes everyone. Keys are `hashtext` of the schema and of the folder path.
    package func lockForWriting(roots: [String]) throws -> WriterLock {
        let index = "trove:" + url.schema
        let whole = roots.isEmpty
        let (take, give) =
            whole
            ? ("pg_try_advisory_lock", "pg_advisory_unlock") : ("pg_try_advisory_lock_shared", "pg_advisory_unlock_shared")
        guard try connection.scalar("SELECT \(take)(hashtext($1), 0)", [index]) == "t" else {
            throw try locked(roots.first)
        }
        var unlocks: [(String, [String?])] = [("SELECT \(give)(hashtext($1), 0)", [index])]
        let connection = connection
        func release() { for (sql, parameters) in unlocks.reversed() { _ = try? connection.query(sql, parameters) } }
        for root in roots {
            guard
                try connection.scalar("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))", [index, root]) == "t"
            else {
                release()
                throw try locked(root)
            }
            unlocks.append(("SELECT pg_advisory_unlock(hashtext($1), hashtext($2))", [index, root]))
        }
        let taken = unlocks
        return WriterLock(releasing: {
            for (sql, parameters) in taken.reversed() { _ = try? connection.query(sql, parameters) }
        })
    }

    /// The error for a lock another session holds, naming its backend (and host) when the server tells.
    private func locked(_ root: String?) throws -> StoreError {
        let holder = try connection.query(
            """
            SELECT activity.pid, coalesce(host(activity.client_addr), 'local') FROM pg_locks AS locks
            JOIN pg_stat_activity AS activity ON activity.pid = locks.pid
            WHERE locks.locktype = 'advisory' AND locks.granted AND locks.classid::int = hashtext($1)
              AND locks.pid != pg_backend_pid()
            LIMIT 1
            """, ["trove:" + url.schema])
        let who =
            holder.count > 0
            ? "trove process (PostgreSQL backend pid \(holder.string(0, 0)), from \(holder.string(0, 1)))"
            : "trove process"
        let what = root.map { "folder \($0) of index \(location)" } ?? "index \(location)"
        return StoreError(code: .locked, message: "another \(who) is writing \(what) — wait for it to finish, or stop it")
    }

    // MARK: Re-embedding in place

    /// The staging tables always exist; `fresh` empties them (a different model than the staged one).
    package func beginReembedding(fresh: Bool) throws {
        guard fresh else { return }
        try inTransaction { try connection.execute("DELETE FROM reembed_vectors; DELETE FROM reembed_state") }
    }

    /// A value remembered for an unfinished re-embed, nil when none.
    package func reembedState(_ key: String) throws -> String? {
        try connection.scalar("SELECT value FROM reembed_state WHERE key = $1", [key])
    }

    /// Remembers a value for the re-embed in progress.
    package func setReembedState(_ key: String, _ value: String) throws {
        try writing {
            _ = try connection.query(
                "INSERT INTO reembed_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                [key, value])
        }
    }

    /// Up to `limit` chunks with no staged vector yet, in id order, after `afterID`.
    package func chunksToReembed(afterID: Int64, limit: Int) throws -> [ChunkForEmbedding] {
        let rows = try connection.query(
            """
            SELECT chunks.id, chunks.heading, chunks.text FROM chunks
            WHERE chunks.id > $1 AND NOT EXISTS (SELECT 1 FROM reembed_vectors WHERE chunk_id = chunks.id)
            ORDER BY chunks.id LIMIT $2
            """, [String(afterID), String(limit)])
        return (0..<rows.count).map {
            ChunkForEmbedding(id: rows.int64($0, 0), heading: rows.string($0, 1), text: rows.string($0, 2))
        }
    }

    /// Stages new vectors (call inside `inTransaction`).
    package func stageVectors(_ vectors: [(chunkID: Int64, vector: [Float])]) throws {
        try writing {
            for (chunkID, vector) in vectors {
                guard vector.withUnsafeBufferPointer(VectorBlob.isFinite) else {
                    throw StoreError(
                        code: .corruptVector, message: "chunk \(chunkID) got a non-finite value in its vector")
                }
                try connection.query(
                    """
                    INSERT INTO reembed_vectors (chunk_id, embedding) VALUES ($1, $2::vector)
                    ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding
                    """, [String(chunkID), PostgresVector.text(vector)])
            }
        }
    }

    /// Swaps the staged vectors in, writes `manifest` and adds one to the generation, in one transaction (readers
    /// see the old vectors until it commits). The HNSW index is dropped first; `afterIndexing` builds it again.
    package func finishReembedding(manifest: IndexManifest) throws {
        try inTransaction {
            let unstaged =
                Int(
                    try connection.scalar(
                        "SELECT count(*) FROM chunks WHERE NOT EXISTS "
                            + "(SELECT 1 FROM reembed_vectors WHERE chunk_id = chunks.id)") ?? "0") ?? 0
            guard unstaged == 0 else {
                throw StoreError.reembedIncomplete(location, unstaged: Int64(unstaged))
            }
            let generation = try vectorGeneration()
            try dropHNSW()
            try connection.execute(
                """
                DELETE FROM reembed_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks);
                DELETE FROM vectors;
                """)
            try typeVectorColumn(dimension: manifest.dimension)
            try connection.execute(
                """
                INSERT INTO vectors (chunk_id, embedding) SELECT chunk_id, embedding FROM reembed_vectors;
                DELETE FROM reembed_vectors; DELETE FROM reembed_state;
                """)
            try writeManifest(manifest)
            try connection.query(
                """
                INSERT INTO manifest (key, value) VALUES ('generation', $1)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [String(generation + 1)])
        }
    }
}
