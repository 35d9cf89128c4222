/// The PostgreSQL schema of one index, as append-only migrations recorded in its `schema_version` table.
///
/// The same tables as the SQLite file, in a schema of their own (`?schema=`, default `trove`), so several indexes
/// share one database. Choices, and why:
/// - `GENERATED ALWAYS AS IDENTITY` ids are never reused, like SQLite's AUTOINCREMENT: a stale id is simply absent.
/// - `vectors.embedding` is pgvector's `vector`; its dimension is fixed (`vector(d)`) when the manifest is first
///   written, since an HNSW index needs a typed column.
/// - `chunks.keywords` is a stored generated `tsvector` (heading weighted A, text D) with a GIN index: kept in step
///   by PostgreSQL itself. The `english` configuration stems like FTS5's porter tokenizer. `keyword_length` (its
///   token count) and the one-row `keyword_stats` (passages and tokens, kept by triggers) are BM25's passage length,
///   N and average length without a scan: keyword ranking is BM25 in SQL, measured at a mean nDCG@10 of 0.4684 on
///   the four public sets against 0.2111 for `ts_rank_cd` (/work/notes/pg-findings.md, the pgbench branch).
/// - `state.data_version` is bumped by every write transaction: a reader's cheap "did anything change".
/// - The re-embed staging tables always exist (untyped `vector`, so a new model may change the dimension).
enum PostgresSchema {
    static let migrations: [String] = [
        """
        CREATE TABLE manifest (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE state (key text PRIMARY KEY, value bigint NOT NULL);
        INSERT INTO state (key, value) VALUES ('data_version', 0);

        CREATE TABLE roots (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            path text UNIQUE NOT NULL,
            added_at bigint NOT NULL
        );

        CREATE TABLE documents (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            root_id bigint NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
            path text NOT NULL,
            size bigint NOT NULL,
            mtime_ns bigint NOT NULL,
            content_hash text NOT NULL,
            indexed_at bigint NOT NULL,
            UNIQUE (root_id, path)
        );

        -- BM25's passage length: the tokens of a tsvector.
        CREATE FUNCTION tsvector_tokens(tsvector) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT coalesce(sum(array_length(positions, 1)), 0)::integer FROM unnest($1) $$;
        -- The OR of a text's lexemes, each quoted, so no input is a tsquery syntax error; '' when it has none.
        CREATE FUNCTION or_query(q text) RETURNS tsquery LANGUAGE sql IMMUTABLE STRICT AS $$
            SELECT coalesce(
                string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery,
                ''::tsquery)
            FROM unnest(to_tsvector('english', q)) $$;

        CREATE TABLE chunks (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ordinal integer NOT NULL,
            start_line integer NOT NULL,
            end_line integer NOT NULL,
            heading text NOT NULL,
            text text NOT NULL,
            content_hash text NOT NULL,
            keywords tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('english', heading), 'A') || to_tsvector('english', text)) STORED,
            -- A generated column cannot read another: the same expression again.
            keyword_length integer GENERATED ALWAYS AS (tsvector_tokens(
                setweight(to_tsvector('english', heading), 'A') || to_tsvector('english', text))) STORED
        );
        CREATE INDEX chunks_document_id ON chunks (document_id);
        CREATE INDEX chunks_content_hash ON chunks (content_hash);
        CREATE INDEX chunks_keywords ON chunks USING gin (keywords);

        -- One row: a writer holds it from its first chunk to its commit, so write transactions take turns here
        -- (embedding, outside them, still overlaps).
        CREATE TABLE keyword_stats (passages bigint NOT NULL, tokens bigint NOT NULL);
        INSERT INTO keyword_stats VALUES (0, 0);
        CREATE FUNCTION keyword_stats_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE keyword_stats SET passages = passages + 1, tokens = tokens + NEW.keyword_length;
            ELSE
                UPDATE keyword_stats SET passages = passages - 1, tokens = tokens - OLD.keyword_length;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER chunks_keyword_stats AFTER INSERT OR DELETE ON chunks
            FOR EACH ROW EXECUTE FUNCTION keyword_stats_count();

        CREATE TABLE vectors (
            chunk_id bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            embedding vector NOT NULL
        );

        CREATE TABLE reembed_vectors (chunk_id bigint PRIMARY KEY, embedding vector NOT NULL);
        CREATE TABLE reembed_state (key text PRIMARY KEY, value text NOT NULL);

        CREATE TABLE chat_sessions (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text UNIQUE NOT NULL,
            chat_model text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE TABLE chat_messages (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id bigint NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
            role text NOT NULL CHECK (role IN ('user', 'assistant', 'summary')),
            content text NOT NULL,
            sources text NOT NULL DEFAULT '[]',
            interrupted boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL
        );
        CREATE INDEX chat_messages_session ON chat_messages (session_id, id);
        """,
        // Migration 2: documents that are not text, as SQLite's migration 4 (Schema.swift): format, extractor and
        // rendition structure per document, the locator per chunk, remembered extraction failures.
        """
        ALTER TABLE documents ADD COLUMN format text, ADD COLUMN extractor text, ADD COLUMN structure text;
        CREATE INDEX documents_content_hash ON documents (content_hash);
        ALTER TABLE chunks ADD COLUMN locator_kind text, ADD COLUMN locator_first integer,
            ADD COLUMN locator_last integer, ADD COLUMN locator_approximate boolean NOT NULL DEFAULT false;
        CREATE TABLE extraction_failures (
            content_hash text NOT NULL,
            extractor text NOT NULL,
            kind text NOT NULL,
            detail text NOT NULL,
            failed_at bigint NOT NULL,
            PRIMARY KEY (content_hash, extractor)
        );
        """,
    ]

    /// The version this build writes and understands.
    static var currentVersion: Int { migrations.count }

    /// Whether the index's schema exists (has its version table).
    static func exists(_ connection: PostgresConnection, schema: String) throws -> Bool {
        try connection.scalar("SELECT to_regclass($1) IS NOT NULL", ["\(schema).schema_version"]) == "t"
    }

    /// Creates the schema (and the `vector` extension when allowed) and brings it to `currentVersion`; returns how
    /// many migrations ran. Two processes opening a new index at once serialise on a transaction-level advisory
    /// lock, so migration 1 runs once.
    static func migrate(_ connection: PostgresConnection, schema: String) throws -> Int {
        try connection.transaction {
            _ = try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["trove-schema:" + schema])
            if try connection.scalar("SELECT 1 FROM pg_extension WHERE extname = 'vector'") == nil {
                do {
                    try connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
                } catch let error as StoreError {
                    throw StoreError(
                        code: error.code,
                        message: "the pgvector extension is not installed in \(connection.shown) and this role "
                            + "cannot install it — ask the database owner to run: CREATE EXTENSION vector",
                        sql: error.sql)
                }
            }
            // The name was checked to be plain ([a-z_][a-z0-9_]*), so it is safe to splice as an identifier.
            try connection.execute(
                "CREATE SCHEMA IF NOT EXISTS \(schema); "
                    + "CREATE TABLE IF NOT EXISTS \(schema).schema_version (version integer NOT NULL)")
            let found = Int(try connection.scalar("SELECT max(version) FROM schema_version") ?? "0") ?? 0
            if found > currentVersion {
                throw StoreError(
                    code: .schemaTooNew,
                    message: "index \(connection.shown) was written by a newer trove (schema \(found), this one "
                        + "knows \(currentVersion)) — upgrade trove")
            }
            for version in found..<currentVersion {
                try connection.execute(migrations[version])
                try connection.query("INSERT INTO schema_version (version) VALUES ($1)", [String(version + 1)])
            }
            return currentVersion - found
        }
    }
}
