#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Documents that are not text on PostgreSQL: as `SQLiteStore+Extraction.swift`.
extension PostgresStore {
    /// The stored structure of those of these documents read as `format`, by document id.
    package func structures(ofDocuments documentIDs: [Int64], format: String) throws -> [Int64: String] {
        guard !documentIDs.isEmpty else { return [:] }
        let rows = try connection.query(
            """
            SELECT id, structure FROM documents
            WHERE id = ANY($1::bigint[]) AND format = $2 AND structure IS NOT NULL
            """, [PostgresArray.ids(documentIDs), format])
        var structures: [Int64: String] = [:]
        for row in 0..<rows.count { structures[rows.int64(row, 0)] = rows.string(row, 1) }
        return structures
    }

    /// An extracted document of `format` with this content hash, with its chunks and vectors; nil when none.
    package func reusableExtraction(contentHash: String, format: String) throws -> ReusableExtraction? {
        guard let dimension = try manifestDimension(), dimension > 0 else { return nil }
        let rows = try connection.query(
            """
            WITH found AS (
                SELECT id, extractor, structure FROM documents
                WHERE content_hash = $1 AND format = $2 AND extractor IS NOT NULL AND structure IS NOT NULL LIMIT 1)
            SELECT found.extractor, found.structure, chunks.id, chunks.ordinal, chunks.start_line, chunks.end_line,
                   chunks.heading, chunks.text, chunks.locator_kind, chunks.locator_first, chunks.locator_last,
                   chunks.locator_approximate, chunks.content_hash, vectors.embedding::text
            FROM found LEFT JOIN chunks ON chunks.document_id = found.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            ORDER BY chunks.ordinal
            """, [contentHash, format])
        guard rows.count > 0 else { return nil }
        var chunks: [NewChunk] = []
        for row in 0..<rows.count where rows.optionalString(row, 2) != nil {
            // A chunk without its vector (a torn copy cannot happen in one transaction): not reusable as a whole.
            guard let vector = rows.optionalString(row, 13) else { return nil }
            chunks.append(
                NewChunk(
                    ordinal: rows.int(row, 3), startLine: rows.int(row, 4), endLine: rows.int(row, 5),
                    heading: rows.string(row, 6), text: rows.string(row, 7), contentHash: rows.string(row, 12),
                    vector: try PostgresVector.parse(vector, chunkID: rows.int64(row, 2), dimension: dimension),
                    locator: rows.locator(row, 8)))
        }
        return ReusableExtraction(
            extraction: StoredExtraction(format: format, extractor: rows.string(0, 0), structure: rows.string(0, 1)),
            chunks: chunks)
    }

    /// The remembered failure of content with this hash under `extractor`; nil when none.
    package func extractionFailure(contentHash: String, extractor: String) throws -> StoredExtractionFailure? {
        let rows = try connection.query(
            "SELECT kind, detail FROM extraction_failures WHERE content_hash = $1 AND extractor = $2",
            [contentHash, extractor])
        guard rows.count > 0 else { return nil }
        return StoredExtractionFailure(kind: rows.string(0, 0), detail: rows.string(0, 1))
    }

    /// Remembers that content with this hash failed under `extractor`.
    package func recordExtractionFailure(
        contentHash: String, extractor: String, failure: StoredExtractionFailure
    ) throws {
        try writing {
            _ = try connection.query(
                """
                INSERT INTO extraction_failures (content_hash, extractor, kind, detail, failed_at)
                VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (content_hash, extractor) DO UPDATE
                SET kind = excluded.kind, detail = excluded.detail, failed_at = excluded.failed_at
                """, [contentHash, extractor, failure.kind, failure.detail, String(time(nil))])
        }
    }
}

extension PostgresRows {
    /// The locator in four columns from `column` on (kind, first, last, approximate); nil when the kind is NULL.
    func locator(_ row: Int, _ column: Int) -> StoredLocator? {
        guard let kind = optionalString(row, column) else { return nil }
        return StoredLocator(
            kind: kind, first: int(row, column + 1), last: int(row, column + 2),
            approximate: string(row, column + 3) == "t")
    }
}
