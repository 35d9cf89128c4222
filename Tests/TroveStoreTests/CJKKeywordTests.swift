import CSQLite
import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

/// `Tests/Fixtures/cjk-notes` (notes in Chinese, Japanese, Korean and English that we wrote) and its queries.
enum CJKNotes {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
    static let queries: [(query: String, expected: String)] = {
        let table = (try? String(contentsOfFile: folder + "/cjk-queries.tsv", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return (fields[0], fields[1])
        }
    }()
    static let files = [
        "zh/tea.md", "zh/cat.md", "zh/trip.md", "ja/memo.md", "ja/ramen.md", "ja/meeting.md",
        "ko/kimchi.md", "ko/jeju.md", "ko/study.md", "en/tea.md",
    ]
}

@Suite("Keywords in Chinese, Japanese and Korean")
struct CJKKeywordTests {
    /// The notes, one chunk each (heading from the first line), and each file's chunk id.
    private func storeWithNotes(_ directory: TemporaryDirectory) throws -> (SQLiteStore, [String: Int64]) {
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: CJKNotes.folder + "/cjk-notes")
        try store.inTransaction {
            for (ordinal, file) in CJKNotes.files.enumerated() {
                let text = try String(contentsOfFile: CJKNotes.folder + "/cjk-notes/" + file, encoding: .utf8)
                let heading = String(text.split(separator: "\n").first ?? "").replacingOccurrences(of: "# ", with: "")
                try store.replaceDocument(
                    document(root, file, hash: file), chunks: [chunk(ordinal, text, heading: heading)])
            }
        }
        var ids: [String: Int64] = [:]
        for id in try store.loadVectors().chunkIDs { ids[try store.chunks(ids: [id])[id]!.path] = id }
        return (store, ids)
    }

    @Test("each query, one- and two-character words included, finds its note first")
    func everyQueryFindsItsNote() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithNotes(directory)
        #expect(CJKNotes.queries.count == 20)
        for (query, expected) in CJKNotes.queries {
            let hits = try store.keywordSearch(query, limit: 3)
            #expect(hits.first?.chunkID == ids[expected], "\(query) → \(hits) (expected \(expected))")
        }
    }

    @Test("the issue's case: メモ finds a note containing 日本語のメモ。")
    func wordInsideARun() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithNotes(directory)
        #expect(try store.keywordSearch("メモ", limit: 10).map(\.chunkID) == [ids["ja/memo.md"]!])
        // A word the notes do not contain finds nothing, and neither does half of a bigram across a boundary.
        #expect(try store.keywordSearch("東京", limit: 10).isEmpty)
    }

    @Test("a mixed query searches both tables: the English and the Chinese tea notes, and nothing else")
    func mixedQuery() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithNotes(directory)
        let hits = try store.keywordSearch("tea 绿茶", limit: 10)
        #expect(Set(hits.map(\.chunkID)) == [ids["zh/tea.md"]!, ids["en/tea.md"]!])
        #expect(hits.allSatisfy { $0.score > 0 })
    }

    @Test("queries are split where the tokenizer splits documents")
    func queryShape() {
        #expect(SQLiteStore.cjkQuery("日本語のメモ") == "\"日本\" OR \"本語\" OR \"語の\" OR \"のメ\" OR \"メモ\"")
        #expect(SQLiteStore.cjkQuery("猫") == "\"猫\"")
        #expect(SQLiteStore.cjkQuery("green tea") == nil)
        #expect(SQLiteStore.cjkQuery("Swiftのメモ 김치") == "\"のメ\" OR \"メモ\" OR \"김치\"")
        #expect(SQLiteStore.ftsQuery("Swiftのメモ 김치") == "\"Swift\"")
        // English words are sent exactly as before the CJK table existed.
        #expect(SQLiteStore.ftsQuery("don't C++ flour") == "\"don't\" OR \"C++\" OR \"flour\"")
    }

    @Test("deleting and changing a note keeps the CJK table in step")
    func triggers() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithNotes(directory)
        let root = try store.rootID(forPath: CJKNotes.folder + "/cjk-notes")
        try store.inTransaction {
            try store.replaceDocument(document(root, "ja/memo.md", hash: "new"), chunks: [chunk(0, "東京タワー")])
        }
        #expect(try store.keywordSearch("メモ", limit: 10).isEmpty)
        #expect(try store.keywordSearch("タワー", limit: 10).count == 1)
        #expect(try store.keywordSearch("猫", limit: 10).map(\.chunkID) == [ids["zh/cat.md"]!])
        #expect(try store.integrityCheck() == "ok")
    }
}

@Suite("BM25 with choosable parameters")
struct BM25Tests {
    @Test("at k1 1.2, b 0.75 trove_bm25 equals SQLite's bm25() on random texts, heading weights included")
    func matchesSQLite() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: "/notes")
        var random = SplitMix64(seed: 12)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
        try store.inTransaction {
            for n in 0..<60 {
                let text = (0..<(3 + pick(40))).map { _ in words[pick(words.count)] }
                let heading = (0..<pick(3)).map { _ in words[pick(words.count)] }
                try store.replaceDocument(
                    document(root, "\(n).md"),
                    chunks: [chunk(0, text.joined(separator: " "), heading: heading.joined(separator: " "))])
            }
        }
        for (query, heading) in [("alpha", 1.0), ("beta gamma", 1.0), ("zeta OR theta", 2.5), ("eta", 0.0)] {
            let match = SQLiteStore.ftsQuery(query)!
            let reference = try store.database.withStatement(
                "SELECT rowid, -bm25(chunks_fts, 1.0, ?2) FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY rowid"
            ) { statement in
                try statement.bind(match, at: 1)
                try statement.bind(heading, at: 2)
                var scores: [Int64: Double] = [:]
                while try statement.step() { scores[statement.int64(0)] = statement.double(1) }
                return scores
            }
            let ours = try store.keywordSearch(query, limit: 100, bm25: BM25(k1: 1.2, b: 0.75, headingWeight: heading))
            #expect(ours.count == reference.count)
            for hit in ours { #expect(abs(hit.score - reference[hit.chunkID]!) < 1e-9, "\(query) \(hit)") }
        }
    }

    @Test("b 0 ignores length and k1 0 ignores how often a term occurs")
    func parameters() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: "/notes")
        try store.inTransaction {
            try store.replaceDocument(document(root, "short.md"), chunks: [chunk(0, "flour")])
            try store.replaceDocument(
                document(root, "long.md"), chunks: [chunk(1, "flour flour " + String(repeating: "water ", count: 40))])
        }
        let ids = try store.loadVectors().chunkIDs
        // Length normalised, the one-word passage wins; not normalised, two occurrences beat one.
        let normalised = try store.keywordSearch("flour", limit: 2, bm25: BM25(k1: 1.2, b: 0.75, headingWeight: 1))
        #expect(normalised.map(\.chunkID) == ids)
        let noLength = try store.keywordSearch("flour", limit: 2, bm25: BM25(k1: 1.2, b: 0, headingWeight: 1))
        #expect(noLength.map(\.chunkID) == ids.reversed())
        let noFrequency = try store.keywordSearch("flour", limit: 2, bm25: BM25(k1: 0, b: 0.75, headingWeight: 1))
        #expect(abs(noFrequency[0].score - noFrequency[1].score) < 1e-12)
    }
}

@Suite("Schema migration 3: the CJK table")
struct CJKMigrationTests {
    @Test("an index of schema 2 gains the CJK table on open, filled from the passages it already holds")
    func migratesExistingIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/old.sqlite"
        do {
            let database = try Database(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try database.execute(Schema.migrations[0] + Schema.migrations[1] + "PRAGMA user_version = 2;")
            try database.execute(
                """
                INSERT INTO roots (id, path, added_at) VALUES (1, '/notes', 0);
                INSERT INTO documents (id, root_id, path, size, mtime_ns, content_hash, indexed_at)
                    VALUES (1, 1, 'memo.md', 10, 0, 'h', 0);
                INSERT INTO chunks (id, document_id, ordinal, start_line, end_line, heading, text, content_hash)
                    VALUES (7, 1, 0, 1, 1, '', '日本語のメモ。', 'c');
                """)
        }
        let store = try SQLiteStore(path: path, createIfMissing: false)
        #expect(store.appliedMigrations == Schema.currentVersion - 2)
        #expect(try store.keywordSearch("メモ", limit: 10).map(\.chunkID) == [7])
        #expect(try store.integrityCheck() == "ok")
    }
}
