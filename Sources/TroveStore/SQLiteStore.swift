import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index file: roots, documents, chunks, vectors, FTS.
/// Not thread-safe: one owner uses it synchronously.
package final class SQLiteStore {
    /// The file path of the SQLite database.
    package let path: String
    /// The connection; internal so tests can reach the raw SQL.
    let database: Database
    /// How many migrations this open applied (0 when the file was already current).
    let appliedMigrations: Int

    /// Opens (and, when `createIfMissing`, creates with mode 0600) the index, migrating its schema.
    /// Throws `StoreError` with code `.missingIndex` when the file is absent and `createIfMissing` is false.
    /// How a search maps the flat vector cache; only benchmarks choose another than `.map`.
    package var vectorLoad = VectorCache.LoadMode.map

    package init(path: String, createIfMissing: Bool) throws {
        self.path = path
        if !FileSystem.exists(path) {
            guard createIfMissing else { throw StoreError.missingIndex(path: path) }
            try FileSystem.createDirectories(FileSystem.parentDirectory(of: path), path: path)
            try FileSystem.createPrivateFile(path)
        }
        // No SQLITE_OPEN_CREATE: the file exists now, and if it vanished meanwhile we want an error, not a
        // world-readable replacement. NOMUTEX: one owner, so SQLite's per-call locking is wasted work.
        database = try Database(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        try Self.configure(database)
        appliedMigrations = try Schema.migrate(database)
    }

    private static func configure(_ database: Database) throws {
        // Reading the header first turns "not a database" into a clear error before any PRAGMA writes.
        _ = try database.scalarInt("PRAGMA user_version")
        // page_size only takes effect on an empty file and must precede WAL mode; 8 KiB pages store 1.5 KiB
        // vectors about 20% more compactly than 4 KiB ones (less per-page slack, no overflow pages).
        try database.execute("PRAGMA page_size = 8192")
        // WAL: searches read while an indexing run writes. The result can be another mode on filesystems
        // without shared memory; the index still works, only without concurrent readers.
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        // NORMAL in WAL mode is durable against crashes of the process; a power cut may lose the last
        // commits, which a rerun of `trove index` redoes.
        try database.execute(
            """
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -16384;
            """)
        // Memory-mapped reads let loadVectors copy each BLOB straight out of the OS page cache instead of
        // pread-ing every page into SQLite's cache first: measured 100k×384 load ~125 ms instead of ~220 ms.
        // SQLite clamps this to its compile-time maximum; files larger than 1 GiB read the rest normally.
        _ = try database.scalarInt("PRAGMA mmap_size = 1073741824")
    }

    // MARK: Manifest

    /// The fingerprint, or nil for a new index.
    package func manifest() throws -> IndexManifest? {
        let values = try database.withStatement("SELECT key, value FROM manifest") { statement in
            var values: [String: String] = [:]
            while try statement.step() { values[statement.string(0)] = statement.string(1) }
            return values
        }
        return try ManifestText.decode(values) { reason in
            StoreError.damaged(path: path, reason: reason, code: SQLITE_CORRUPT)
        }
    }

    /// Replaces every manifest key with those of `manifest` (atomically).
    package func writeManifest(_ manifest: IndexManifest) throws {
        let pairs = ManifestText.encode(manifest)
        try database.transaction {
            // The generation and the run records are not part of the fingerprint: they survive a rewrite.
            try database.execute(ManifestText.deleteFingerprint)
            for (key, value) in pairs {
                try database.withStatement("INSERT INTO manifest (key, value) VALUES (?, ?)") { statement in
                    try statement.bind(key, at: 1)
                    try statement.bind(value, at: 2)
                    try statement.run()
                }
            }
        }
    }

    /// The manifest's dimension, nil when no manifest was written.
    private func manifestDimension() throws -> Int? {
        try database.withStatement("SELECT value FROM manifest WHERE key = 'dimension'") { statement in
            guard try statement.step() else { return nil }
            let value = statement.string(0)
            guard let dimension = Int(value), dimension >= 0 else {
                throw StoreError.damaged(
                    path: path, reason: "its manifest's dimension is \"\(value)\", not a number", code: SQLITE_CORRUPT)
            }
            return dimension
        }
    }

    // MARK: Transactions

    /// Runs `body` in one `BEGIN IMMEDIATE … COMMIT` transaction; rolls back when it throws, and rethrows.
    /// A nested call runs in a SAVEPOINT inside the outer transaction: its failure undoes only its own work.
    @discardableResult
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try database.transaction(body)
    }

    // MARK: Roots and documents

    /// The id of the root folder `path` (absolute), inserting it when new.
    package func rootID(forPath path: String) throws -> Int64 {
        if let id = try database.withStatement(
            "SELECT id FROM roots WHERE path = ?",
            { statement in
                try statement.bind(path, at: 1)
                return try statement.step() ? statement.int64(0) : nil
            })
        {
            return id
        }
        return try database.withStatement("INSERT INTO roots (path, added_at) VALUES (?, ?)") { statement in
            try statement.bind(path, at: 1)
            try statement.bind(Int64(time(nil)), at: 2)
            try statement.run()
            return database.lastInsertRowID
        }
    }

    /// Every root with its document count, ordered by path.
    package func roots() throws -> [IndexRoot] {
        try database.withStatement(
            """
            SELECT roots.id, roots.path, count(documents.id) FROM roots
            LEFT JOIN documents ON documents.root_id = roots.id
            GROUP BY roots.id ORDER BY roots.path
            """
        ) { statement in
            var roots: [IndexRoot] = []
            while try statement.step() {
                roots.append(
                    IndexRoot(id: statement.int64(0), path: statement.string(1), documentCount: statement.int(2)))
            }
            return roots
        }
    }

    /// The documents stored under a root, keyed by their root-relative path.
    package func documents(inRoot rootID: Int64) throws -> [String: StoredDocument] {
        try database.withStatement(
            "SELECT id, path, size, mtime_ns, content_hash FROM documents WHERE root_id = ?"
        ) { statement in
            try statement.bind(rootID, at: 1)
            var documents: [String: StoredDocument] = [:]
            while try statement.step() {
                documents[statement.string(1)] = StoredDocument(
                    id: statement.int64(0), size: statement.int64(2), modifiedNanoseconds: statement.int64(3),
                    contentHash: statement.string(4))
            }
            return documents
        }
    }

    /// Replaces the document at (rootID, path) with these chunks and vectors (call inside `inTransaction`).
    /// Returns the new document id. Vectors must match the manifest's dimension and be finite; on any error
    /// nothing of this document is written (it runs in its own savepoint).
    @discardableResult
    package func replaceDocument(_ document: NewDocument, chunks: [NewChunk]) throws -> Int64 {
        try NewChunk.validate(chunks, of: document.path, dimension: try manifestDimension())
        return try database.transaction {
            // The cascade removes the old chunks and vectors; the chunks trigger removes their FTS rows.
            try database.withStatement("DELETE FROM documents WHERE root_id = ? AND path = ?") { statement in
                try statement.bind(document.rootID, at: 1)
                try statement.bind(document.path, at: 2)
                try statement.run()
            }
            let documentID = try database.withStatement(
                """
                INSERT INTO documents (root_id, path, size, mtime_ns, content_hash, indexed_at, format, extractor,
                                       structure)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ) { statement in
                try statement.bind(document.rootID, at: 1)
                try statement.bind(document.path, at: 2)
                try statement.bind(document.size, at: 3)
                try statement.bind(document.modifiedNanoseconds, at: 4)
                try statement.bind(document.contentHash, at: 5)
                try statement.bind(Int64(time(nil)), at: 6)
                try statement.bind(document.extraction?.format, at: 7)
                try statement.bind(document.extraction?.extractor, at: 8)
                try statement.bind(document.extraction?.structure, at: 9)
                try statement.run()
                return database.lastInsertRowID
            }
            if document.extraction != nil { try forgetExtractionFailures(contentHash: document.contentHash) }
            let insertChunk = try database.cachedStatement(
                """
                INSERT INTO chunks (document_id, ordinal, start_line, end_line, heading, text, content_hash,
                                    locator_kind, locator_first, locator_last, locator_approximate)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let insertVector = try database.cachedStatement("INSERT INTO vectors (chunk_id, embedding) VALUES (?, ?)")
            defer {
                insertChunk.reset()
                insertVector.reset()
            }
            for chunk in chunks {
                insertChunk.reset()
                try insertChunk.bind(documentID, at: 1)
                try insertChunk.bind(chunk.ordinal, at: 2)
                try insertChunk.bind(chunk.startLine, at: 3)
                try insertChunk.bind(chunk.endLine, at: 4)
                try insertChunk.bind(chunk.heading, at: 5)
                try insertChunk.bind(chunk.text, at: 6)
                try insertChunk.bind(chunk.contentHash, at: 7)
                try insertChunk.bind(chunk.locator?.kind, at: 8)
                if let locator = chunk.locator {
                    try insertChunk.bind(locator.first, at: 9)
                    try insertChunk.bind(locator.last, at: 10)
                } else {
                    try insertChunk.bindNull(at: 9)
                    try insertChunk.bindNull(at: 10)
                }
                try insertChunk.bind(chunk.locator?.approximate == true ? 1 : 0, at: 11)
                try insertChunk.run()
                let chunkID = database.lastInsertRowID

                insertVector.reset()
                try insertVector.bind(chunkID, at: 1)
                try VectorBlob.withBytes(of: chunk.vector) { try insertVector.bind(blob: $0, at: 2) }
                try insertVector.run()
            }
            return documentID
        }
    }

    /// Removes a document with its chunks, vectors and keyword rows.
    package func deleteDocument(id: Int64) throws {
        try database.withStatement("DELETE FROM documents WHERE id = ?") { statement in
            try statement.bind(id, at: 1)
            try statement.run()
        }
    }

    // MARK: Vectors

    /// Every vector as one contiguous row-major matrix, validated (length, dimension, finite).
    /// One sequential scan of `vectors` in chunk-id order, each BLOB copied straight into the matrix.
    package func loadVectors() throws -> StoredVectors {
        // A read transaction so the count and the scan see the same snapshot while an indexer commits.
        try database.transaction(deferred: true) {
            let count = Int(try database.scalarInt("SELECT count(*) FROM vectors") ?? 0)
            guard count > 0 else {
                return StoredVectors(dimension: try manifestDimension() ?? 0, chunkIDs: [], values: [])
            }
            guard let dimension = try manifestDimension(), dimension > 0 else {
                throw StoreError.damaged(
                    path: path, reason: "it holds \(count) vectors but no manifest dimension", code: SQLITE_CORRUPT)
            }
            var chunkIDs: [Int64] = []
            chunkIDs.reserveCapacity(count)
            // Uninitialized storage: zero-filling 150 MB first would double the memory traffic.
            let values = try [Float](unsafeUninitializedCapacity: count * dimension) { buffer, initialized in
                initialized = 0
                try database.withStatement("SELECT chunk_id, embedding FROM vectors ORDER BY chunk_id") { statement in
                    guard let base = buffer.baseAddress else { return }
                    var row = 0
                    while try statement.step() {
                        let chunkID = statement.int64(0)
                        guard row < count else {
                            throw StoreError.damaged(
                                path: path, reason: "its vector count changed during a read", code: SQLITE_CORRUPT)
                        }
                        try VectorBlob.decode(
                            statement.blobBytes(1), chunkID: chunkID, dimension: dimension,
                            into: base + row * dimension)
                        chunkIDs.append(chunkID)
                        row += 1
                        initialized = row * dimension
                    }
                }
            }
            return StoredVectors(dimension: dimension, chunkIDs: chunkIDs, values: values)
        }
    }

    // MARK: Chunks

    /// The chunks with these ids, with their document path and root; unknown ids are absent from the result.
    package func chunks(ids: [Int64]) throws -> [Int64: StoredChunk] {
        guard !ids.isEmpty else { return [:] }
        // One cached statement for any number of ids: the list travels as a JSON array through json_each,
        // instead of a fresh `IN (?, ?, …)` statement (and cache entry) per list length.
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try database.withStatement(
            """
            SELECT chunks.id, roots.path, documents.path, chunks.start_line, chunks.end_line, chunks.heading, chunks.text,
                   chunks.locator_kind, chunks.locator_first, chunks.locator_last, chunks.locator_approximate
            FROM chunks
            JOIN documents ON documents.id = chunks.document_id
            JOIN roots ON roots.id = documents.root_id
            WHERE chunks.id IN (SELECT value FROM json_each(?))
            """
        ) { statement in
            try statement.bind(list, at: 1)
            var chunks: [Int64: StoredChunk] = [:]
            while try statement.step() {
                let chunk = StoredChunk(
                    id: statement.int64(0), rootPath: statement.string(1), path: statement.string(2),
                    startLine: statement.int(3), endLine: statement.int(4), heading: statement.string(5),
                    text: statement.string(6), locator: statement.locator(at: 7))
                chunks[chunk.id] = chunk
            }
            return chunks
        }
    }

    // MARK: Keyword search

    // MARK: Maintenance

    /// Counts and bytes on disk (database file plus WAL).
    package func statistics() throws -> IndexStatistics {
        let counts = try database.withStatement(
            "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors)"
        ) { statement in
            try statement.step()
            return (statement.int(0), statement.int(1), statement.int(2))
        }
        return IndexStatistics(
            documents: counts.0, chunks: counts.1, vectors: counts.2,
            bytesOnDisk: FileSystem.size(path) + FileSystem.size(path + "-wal"))
    }

    /// SQLite's `PRAGMA integrity_check` plus FTS5's own check; `ok` when healthy, else one problem per line.
    package func integrityCheck() throws -> String {
        let report = try database.withStatement("PRAGMA integrity_check") { statement in
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(0)) }
            return lines.joined(separator: "\n")
        }
        guard report == "ok" else { return report }
        do {
            // Verifies the keyword index against the chunks it mirrors; raises SQLITE_CORRUPT_VTAB when they differ.
            try database.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
            try database.execute("INSERT INTO chunks_cjk (chunks_cjk) VALUES ('integrity-check')")
        } catch let error as StoreError {
            return "keyword index: \(error.message)"
        }
        return "ok"
    }

    /// Copies the WAL into the database file and truncates the WAL (e.g. after a large indexing run).
    package func checkpoint() throws {
        _ = try database.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
