/// The index schema as append-only migrations keyed by `PRAGMA user_version`.
///
/// Migration N brings a file from version N-1 to N. Never edit a shipped migration: append a new one.
enum Schema {
    /// Migration 1: the whole first schema.
    ///
    /// Choices, and why:
    /// - STRICT tables: SQLite would otherwise store a TEXT in `embedding` or a REAL in `size` without a word;
    ///   strictness turns such bugs into errors at write time (needs SQLite 3.37; we build against 3.40).
    /// - `vectors` is its own table keyed by chunk id so `loadVectors` scans only vector pages in rowid order:
    ///   one sequential read. With 8 KiB pages a 1.5 KiB vector row never spills to an overflow page.
    /// - AUTOINCREMENT on documents and chunks: ids are never reused, so a search snapshot taken before a
    ///   re-index can never map an old vector to a new chunk's text; a stale id is simply absent.
    /// - `chunks_fts` is an external-content FTS5 table (`content='chunks'`): the text is stored once, in
    ///   `chunks`, and triggers keep the index in step — including deletes that arrive through
    ///   `ON DELETE CASCADE` from `documents`, since SQLite fires child-table triggers for cascaded deletes.
    ///   A contentless table would need the caller to hand back the old text on every delete (SQLite 3.40
    ///   lacks `contentless_delete`), which is the same work done by hand and easier to get wrong.
    /// - Tokenizer `porter unicode61 remove_diacritics 2`: keyword search is the recall side of hybrid search,
    ///   so "indexing" should find "index" and "café" should find "cafe"; exact-token precision comes from the
    ///   vectors. Porter stems English only; other languages pass through unicode61 unchanged.
    static let migrations: [String] = [
        """
        CREATE TABLE manifest (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE roots (
            id INTEGER PRIMARY KEY,
            path TEXT UNIQUE NOT NULL,
            added_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE documents (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            indexed_at INTEGER NOT NULL,
            UNIQUE (root_id, path)
        ) STRICT;

        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            heading TEXT NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL
        ) STRICT;
        CREATE INDEX chunks_document_id ON chunks(document_id);
        CREATE INDEX chunks_content_hash ON chunks(content_hash);

        CREATE TABLE vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            embedding BLOB NOT NULL
        ) STRICT;

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, heading,
            content = 'chunks', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
        END;
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
        END;
        CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text, heading ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
            INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
        END;
        """,
        // Migration 2: conversations of `trove chat`, kept with the index they searched so they can be resumed.
        // Sources are stored as the JSON the CLI shows, since they are only ever read back whole.
        """
        CREATE TABLE chat_sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT UNIQUE NOT NULL,
            chat_model TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE chat_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'summary')),
            content TEXT NOT NULL,
            sources TEXT NOT NULL DEFAULT '[]',
            interrupted INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX chat_messages_session ON chat_messages(session_id, id);
        """,
        // Migration 3: keywords in Chinese, Japanese and Korean. unicode61 makes one token of a whole run of CJK
        // characters, so a word inside it never matched. `chunks_cjk` indexes only those runs, as unigrams with the
        // bigram starting at each character colocated (`trove_cjk`, Sources/CTroveFTS); `chunks_fts` stays as it
        // was, so ranking of other text does not change. External content like `chunks_fts`, kept by triggers.
        """
        CREATE VIRTUAL TABLE chunks_cjk USING fts5(
            text, heading,
            content = 'chunks', content_rowid = 'id',
            tokenize = 'trove_cjk'
        );
        INSERT INTO chunks_cjk(chunks_cjk) VALUES ('rebuild');
        CREATE TRIGGER chunks_cjk_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_cjk(rowid, text, heading) VALUES (new.id, new.text, new.heading);
        END;
        CREATE TRIGGER chunks_cjk_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_cjk(chunks_cjk, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
        END;
        CREATE TRIGGER chunks_cjk_update AFTER UPDATE OF text, heading ON chunks BEGIN
            INSERT INTO chunks_cjk(chunks_cjk, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
            INSERT INTO chunks_cjk(rowid, text, heading) VALUES (new.id, new.text, new.heading);
        END;
        """,
        // Migration 4: documents that are not text (PDF, HTML, DOCX, …). A document records its format, how it was
        // read and its rendition's structure (JSON: headings, boundaries, locators), so it can be chunked again
        // from the stored text; each chunk records the pages (slides, messages, cells) it lies on, which every hit
        // prints. Failed extractions are remembered by content hash and extractor, so an unchanged failing file is
        // not tried again on every run. The content-hash index finds a stored copy of a moved or copied file.
        // Old rows read as text files (NULL format, no locator).
        """
        ALTER TABLE documents ADD COLUMN format TEXT;
        ALTER TABLE documents ADD COLUMN extractor TEXT;
        ALTER TABLE documents ADD COLUMN structure TEXT;
        CREATE INDEX documents_content_hash ON documents(content_hash);
        ALTER TABLE chunks ADD COLUMN locator_kind TEXT;
        ALTER TABLE chunks ADD COLUMN locator_first INTEGER;
        ALTER TABLE chunks ADD COLUMN locator_last INTEGER;
        ALTER TABLE chunks ADD COLUMN locator_approximate INTEGER NOT NULL DEFAULT 0;

        CREATE TABLE extraction_failures (
            content_hash TEXT NOT NULL,
            extractor TEXT NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            failed_at INTEGER NOT NULL,
            PRIMARY KEY (content_hash, extractor)
        ) STRICT, WITHOUT ROWID;
        """,
    ]

    /// The schema version this build writes and understands.
    static var currentVersion: Int { migrations.count }

    /// Brings `database` up to `currentVersion`; returns how many migrations ran (0 for an up-to-date file).
    /// Throws `.schemaTooNew` for a file from a later trove, before touching it.
    static func migrate(_ database: Database) throws -> Int {
        // A read first: an up-to-date file (the common case, and a read-only one) needs no write lock.
        let found = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
        if found > currentVersion {
            throw StoreError.schemaTooNew(path: database.path, found: found, known: currentVersion)
        }
        if found == currentVersion { return 0 }
        var applied = 0
        while true {
            let ran = try database.transaction { () throws -> Bool in
                // Read the version inside the write transaction: two processes opening a new index at once
                // must not both run migration 1.
                let version = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
                if version > currentVersion {
                    throw StoreError.schemaTooNew(path: database.path, found: version, known: currentVersion)
                }
                guard version < currentVersion else { return false }
                try database.execute(migrations[version])
                // PRAGMA takes no bound parameters; the value is our own integer.
                try database.execute("PRAGMA user_version = \(version + 1)")
                return true
            }
            guard ran else { return applied }
            applied += 1
        }
    }
}
