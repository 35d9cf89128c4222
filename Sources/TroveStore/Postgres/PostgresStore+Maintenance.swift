#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Statistics, checks, compaction, comparison dumps and conversations on PostgreSQL.
extension PostgresStore {
    /// Counts, and the bytes of the schema's tables with their indexes and TOAST.
    package func statistics() throws -> IndexStatistics {
        let rows = try connection.query(
            """
            SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors),
                   (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r')
            """, [url.schema])
        return IndexStatistics(
            documents: rows.int(0, 0), chunks: rows.int(0, 1), vectors: rows.int(0, 2), bytesOnDisk: rows.int64(0, 3))
    }

    /// PostgreSQL checks its own pages; this checks what Trove relies on: every chunk has a vector of the
    /// manifest's dimension, and every document's chunks are ordinals 0..<n. `ok` when so.
    package func integrityCheck() throws -> String {
        var problems: [String] = []
        if let dimension = try manifestDimension() {
            let wrong =
                Int(
                    try connection.scalar(
                        "SELECT count(*) FROM vectors WHERE vector_dims(embedding) != $1", [String(dimension)]) ?? "0")
                ?? 0
            if wrong > 0 { problems.append("\(wrong) vectors are not of the manifest's dimension \(dimension)") }
        }
        let half = try halfWrittenDocuments()
        if !half.isEmpty { problems.append("half-written documents: " + half.joined(separator: ", ")) }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }

    /// `VACUUM (ANALYZE)` of the index's tables: returns dead rows' space for reuse and refreshes the planner's
    /// statistics (its row estimate is what `hnsw=auto` and the filter share read). Runs outside a transaction.
    package func vacuum() throws {
        try connection.execute("VACUUM (ANALYZE) manifest, roots, documents, chunks, vectors, reembed_vectors")
    }

    /// The server checkpoints on its own.
    package func checkpoint() throws {}

    /// Refreshes the planner's statistics after a run that wrote, and builds the HNSW index when the policy says.
    package func afterIndexing(chunksEmbedded: Int) throws {
        if chunksEmbedded > 0 { try connection.execute("ANALYZE vectors") }
        try updateHNSW()
    }

    /// Every document and chunk with its vector bytes (little-endian float32, as SQLite stores them), in
    /// (root, path, ordinal) order by bytes, without ids.
    package func contentRows() throws -> [ContentRow] {
        let dimension = try manifestDimension() ?? 0
        let rows = try connection.query(
            """
            SELECT roots.path, documents.path, documents.content_hash, coalesce(chunks.ordinal, -1),
                   coalesce(chunks.start_line, 0), coalesce(chunks.end_line, 0), coalesce(chunks.heading, ''),
                   coalesce(chunks.text, ''), coalesce(chunks.content_hash, ''), chunks.id, vectors.embedding::text
            FROM documents JOIN roots ON roots.id = documents.root_id
            LEFT JOIN chunks ON chunks.document_id = documents.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            ORDER BY roots.path COLLATE "C", documents.path COLLATE "C", chunks.ordinal
            """)
        return try (0..<rows.count).map { row in
            let vector = try rows.optionalString(row, 10).map {
                PostgresVector.bytes(try PostgresVector.parse($0, chunkID: rows.int64(row, 9), dimension: dimension))
            }
            return ContentRow(
                root: rows.string(row, 0), path: rows.string(row, 1), documentHash: rows.string(row, 2),
                ordinal: rows.int(row, 3), startLine: rows.int(row, 4), endLine: rows.int(row, 5),
                heading: rows.string(row, 6), text: rows.string(row, 7), chunkHash: rows.string(row, 8),
                vector: vector ?? [])
        }
    }

    /// Documents whose chunks are not exactly ordinals 0..<n each with a vector.
    package func halfWrittenDocuments() throws -> [String] {
        let rows = try connection.query(
            """
            SELECT documents.path FROM documents
            LEFT JOIN chunks ON chunks.document_id = documents.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            GROUP BY documents.id
            HAVING count(chunks.id) != count(vectors.chunk_id)
                OR (count(chunks.id) > 0 AND (min(chunks.ordinal) != 0 OR max(chunks.ordinal) != count(chunks.id) - 1))
            ORDER BY documents.path COLLATE "C"
            """)
        return (0..<rows.count).map { rows.string($0, 0) }
    }

    // MARK: Conversations

    /// The session called `name`, created (with `chatModel`) when it does not exist yet.
    package func chatSession(named name: String, chatModel: String) throws -> ChatSessionRecord {
        try inTransaction {
            let now = String(time(nil))
            try connection.query(
                """
                INSERT INTO chat_sessions (name, chat_model, created_at, updated_at) VALUES ($1, $2, $3, $3)
                ON CONFLICT (name) DO NOTHING
                """, [name, chatModel, now])
            let rows = try connection.query("SELECT id, chat_model FROM chat_sessions WHERE name = $1", [name])
            return ChatSessionRecord(id: rows.int64(0, 0), name: name, chatModel: rows.string(0, 1))
        }
    }

    /// The session's messages, oldest first.
    package func chatMessages(sessionID: Int64) throws -> [ChatMessageRecord] {
        let rows = try connection.query(
            "SELECT role, content, sources, interrupted FROM chat_messages WHERE session_id = $1 ORDER BY id",
            [String(sessionID)])
        return try (0..<rows.count).map {
            ChatMessageRecord(
                role: try ChatRole.decode(rows.string($0, 0), damaged: damaged), content: rows.string($0, 1), sources: rows.string($0, 2),
                interrupted: rows.string($0, 3) == "t")
        }
    }

    /// Replaces the session's stored history with `messages`, in one transaction.
    package func replaceChatMessages(sessionID: Int64, with messages: [ChatMessageRecord]) throws {
        try inTransaction {
            try connection.query("DELETE FROM chat_messages WHERE session_id = $1", [String(sessionID)])
            for message in messages { try insert(message, sessionID: sessionID) }
        }
    }

    /// Appends turns to the session, in one transaction.
    package func appendChatMessages(sessionID: Int64, _ messages: [ChatMessageRecord]) throws {
        try inTransaction {
            for message in messages { try insert(message, sessionID: sessionID) }
        }
    }

    /// Records the chat model a session now uses.
    package func setChatModel(sessionID: Int64, _ model: String) throws {
        try writing {
            _ = try connection.query(
                "UPDATE chat_sessions SET chat_model = $1 WHERE id = $2", [model, String(sessionID)])
        }
    }

    /// Every session, the most recently used first.
    package func chatSessions() throws -> [ChatSessionSummary] {
        let rows = try connection.query(
            """
            SELECT s.name, s.chat_model, (SELECT count(*) FROM chat_messages m WHERE m.session_id = s.id), s.updated_at
            FROM chat_sessions s ORDER BY s.updated_at DESC, s.id DESC
            """)
        return (0..<rows.count).map {
            ChatSessionSummary(
                name: rows.string($0, 0), chatModel: rows.string($0, 1), messages: Int(rows.int64($0, 2)),
                updatedAt: rows.int64($0, 3))
        }
    }

    /// The session called `name`, or nil.
    package func existingChatSession(named name: String) throws -> ChatSessionRecord? {
        let rows = try connection.query("SELECT id, chat_model FROM chat_sessions WHERE name = $1", [name])
        guard rows.count > 0 else { return nil }
        return ChatSessionRecord(id: rows.int64(0, 0), name: name, chatModel: rows.string(0, 1))
    }

    /// Gives a session another name; false when another session already has it.
    package func renameChatSession(sessionID: Int64, to name: String) throws -> Bool {
        try inTransaction {
            if let other = try existingChatSession(named: name) { return other.id == sessionID }
            try connection.query("UPDATE chat_sessions SET name = $1 WHERE id = $2", [name, String(sessionID)])
            return true
        }
    }

    /// Deletes a session and its messages.
    package func deleteChatSession(sessionID: Int64) throws {
        try inTransaction {
            try connection.query("DELETE FROM chat_messages WHERE session_id = $1", [String(sessionID)])
            try connection.query("DELETE FROM chat_sessions WHERE id = $1", [String(sessionID)])
        }
    }

    private func insert(_ message: ChatMessageRecord, sessionID: Int64) throws {
        let now = String(time(nil))
        try connection.query(
            """
            INSERT INTO chat_messages (session_id, role, content, sources, interrupted, created_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [String(sessionID), message.role.rawValue, message.content, message.sources, message.interrupted ? "t" : "f", now])
        try connection.query("UPDATE chat_sessions SET updated_at = $1 WHERE id = $2", [now, String(sessionID)])
    }
}
