import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("Keyword search")
struct KeywordSearchTests {
    private func storeWithDocuments(_ directory: TemporaryDirectory) throws -> (SQLiteStore, [String: Int64]) {
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: "/notes")
        var ids: [String: Int64] = [:]
        let texts = [
            "sourdough": "Sourdough bread needs a starter, flour, water and salt. The starter ferments the sourdough.",
            "pasta": "Fresh pasta needs flour and eggs.",
            "garden": "Tomatoes grow well in a sunny garden.",
            "cafe": "We met at the Café de Flore.",
        ]
        try store.inTransaction {
            for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
                try store.replaceDocument(document(root, name + ".md"), chunks: [chunk(0, text, heading: name)])
            }
        }
        for id in try store.loadVectors().chunkIDs {
            let text = try store.chunks(ids: [id])[id]!.path
            ids[String(text.dropLast(3))] = id
        }
        return (store, ids)
    }

    @Test("the chunk that uses the term most ranks first")
    func ranking() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithDocuments(directory)
        let hits = try store.keywordSearch("sourdough flour", limit: 10)
        #expect(hits.first?.chunkID == ids["sourdough"])
        #expect(Set(hits.map(\.chunkID)) == [ids["sourdough"]!, ids["pasta"]!])
        #expect(hits.allSatisfy { $0.score > 0 })
        #expect(hits == hits.sorted { $0.score > $1.score })
        #expect(try store.keywordSearch("flour", limit: 1).count == 1)
    }

    @Test("stemming and accents: 'grows' finds 'grow', 'cafe' finds 'Café'")
    func stemmingAndDiacritics() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithDocuments(directory)
        #expect(try store.keywordSearch("growing", limit: 10).map(\.chunkID) == [ids["garden"]!])
        #expect(try store.keywordSearch("CAFE", limit: 10).map(\.chunkID) == [ids["cafe"]!])
    }

    @Test(
        "hostile input never raises an FTS syntax error",
        arguments: [
            "\"", "\"\"\"", "*", "flour*", "AND", "flour AND", "OR OR", "NOT", "(", "flour)", "NEAR",
            "NEAR(flour eggs)",
            "-", "-flour", ":", "text:flour", "heading:pasta", "^flour", "{text heading}: flour", "'", "\\", "", "   ",
            "\u{0}", "a\"b", "🍞", "flour + eggs", "col:\"x",
            // Found by the fts5 fuzz target: a quote followed by a combining mark is one Character.
            "\u{FFFD}ol:^gcM\"\"\u{059C}\u{FFFD}\u{0}y", "\"\u{301}flour", "a\u{0}\u{301}b",
        ])
    func hostileInput(query: String) throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try storeWithDocuments(directory)
        _ = try store.keywordSearch(query, limit: 5)
    }

    @Test("operators in user text are searched as words, not obeyed")
    func operatorsAreWords() throws {
        let directory = try TemporaryDirectory()
        let (store, ids) = try storeWithDocuments(directory)
        // As FTS5 syntax "NOT flour" would be an error and "-flour" would exclude; as words they still find flour.
        #expect(try Set(store.keywordSearch("-flour", limit: 10).map(\.chunkID)) == [ids["sourdough"]!, ids["pasta"]!])
        #expect(try store.keywordSearch("eggs*", limit: 10).map(\.chunkID) == [ids["pasta"]!])
    }

    @Test("the FTS query quotes each word and doubles inner quotes")
    func queryShape() {
        #expect(KeywordQuery.cases.allSatisfy { SQLiteStore.ftsQuery($0.input) == $0.output })
    }
}

/// Expected FTS5 queries for user text.
enum KeywordQuery {
    static let cases: [(input: String, output: String?)] = [
        ("flour", "\"flour\""),
        ("  flour   eggs ", "\"flour\" OR \"eggs\""),
        ("a\"b", "\"a\"\"b\""),
        ("AND ( *", "\"AND\""),
        ("", nil),
        ("* - :", nil),
        ("x\"\u{059C}", "\"x\"\"\u{059C}\""),
    ]
}
