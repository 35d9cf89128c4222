import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Documents that are not text: a stored copy to reuse for a moved or copied file, and remembered failures.
extension SQLiteStore {
    /// The stored structure of those of these documents read as `format`, by document id.
    package func structures(ofDocuments documentIDs: [Int64], format: String) throws -> [Int64: String] {
        guard !documentIDs.isEmpty else { return [:] }
        return try database.withStatement(
            """
            SELECT id, structure FROM documents
            WHERE id IN (SELECT value FROM json_each(?)) AND format = ? AND structure IS NOT NULL
            """
        ) { statement in
            try statement.bind(Self.jsonList(documentIDs), at: 1)
            try statement.bind(format, at: 2)
            var structures: [Int64: String] = [:]
            while try statement.step() { structures[statement.int64(0)] = statement.string(1) }
            return structures
        }
    }

    /// An extracted document of `format` with this content hash, with its chunks and vectors; nil when none. The
    /// format, not the tool's version, decides: a security update of pdftotext does not re-read every PDF.
    package func reusableExtraction(contentHash: String, format: String) throws -> ReusableExtraction? {
        guard let dimension = try manifestDimensionValue(), dimension > 0 else { return nil }
        return try database.transaction(deferred: true) {
            let head = try database.withStatement(
                """
                SELECT id, extractor, structure FROM documents
                WHERE content_hash = ? AND format = ? AND extractor IS NOT NULL AND structure IS NOT NULL LIMIT 1
                """
            ) { statement -> (Int64, StoredExtraction)? in
                try statement.bind(contentHash, at: 1)
                try statement.bind(format, at: 2)
                guard try statement.step() else { return nil }
                return (
                    statement.int64(0),
                    StoredExtraction(format: format, extractor: statement.string(1), structure: statement.string(2))
                )
            }
            guard let (documentID, extraction) = head else { return nil }
            let chunks = try database.withStatement(
                """
                SELECT chunks.id, ordinal, start_line, end_line, heading, text, locator_kind, locator_first,
                       locator_last, locator_approximate, content_hash, vectors.embedding
                FROM chunks JOIN vectors ON vectors.chunk_id = chunks.id
                WHERE document_id = ? ORDER BY ordinal
                """
            ) { statement in
                try statement.bind(documentID, at: 1)
                var chunks: [NewChunk] = []
                while try statement.step() {
                    var vector = [Float](repeating: 0, count: dimension)
                    try vector.withUnsafeMutableBufferPointer { buffer in
                        try VectorBlob.decode(
                            statement.blobBytes(11), chunkID: statement.int64(0), dimension: dimension,
                            into: buffer.baseAddress!)
                    }
                    chunks.append(
                        NewChunk(
                            ordinal: statement.int(1), startLine: statement.int(2), endLine: statement.int(3),
                            heading: statement.string(4), text: statement.string(5),
                            contentHash: statement.string(10), vector: vector, locator: statement.locator(at: 6)))
                }
                return chunks
            }
            return ReusableExtraction(extraction: extraction, chunks: chunks)
        }
    }

    /// The remembered failure of a file with this content hash under this extractor; nil when none.
    package func extractionFailure(contentHash: String, extractor: String) throws -> StoredExtractionFailure? {
        try database.withStatement(
            "SELECT kind, detail FROM extraction_failures WHERE content_hash = ? AND extractor = ?"
        ) { statement in
            try statement.bind(contentHash, at: 1)
            try statement.bind(extractor, at: 2)
            guard try statement.step() else { return nil }
            return StoredExtractionFailure(kind: statement.string(0), detail: statement.string(1))
        }
    }

    /// Remembers that a file with this content hash failed under this extractor.
    package func recordExtractionFailure(
        contentHash: String, extractor: String, failure: StoredExtractionFailure
    ) throws {
        try database.withStatement(
            """
            INSERT OR REPLACE INTO extraction_failures (content_hash, extractor, kind, detail, failed_at)
            VALUES (?, ?, ?, ?, ?)
            """
        ) { statement in
            try statement.bind(contentHash, at: 1)
            try statement.bind(extractor, at: 2)
            try statement.bind(failure.kind, at: 3)
            try statement.bind(failure.detail, at: 4)
            try statement.bind(Int64(time(nil)), at: 5)
            try statement.run()
        }
    }

    /// Forgets the failures of content that has now been read.
    func forgetExtractionFailures(contentHash: String) throws {
        try database.withStatement("DELETE FROM extraction_failures WHERE content_hash = ?") { statement in
            try statement.bind(contentHash, at: 1)
            try statement.run()
        }
    }
}

extension Statement {
    /// The locator in four columns from `column` on (kind, first, last, approximate); nil when the kind is NULL.
    func locator(at column: Int32) -> StoredLocator? {
        guard !isNull(column) else { return nil }
        return StoredLocator(
            kind: string(column), first: int(column + 1), last: int(column + 2), approximate: int(column + 3) != 0)
    }
}
