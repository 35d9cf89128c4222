import Testing
import TroveKit

@Suite("Snippet: the lines shown under a hit")
struct SnippetTests {
    @Test("the lines sharing most query words, in passage order; headings, fence lines and blank lines left out")
    func bestLines() {
        let text = """
            # Basil care
            Water the basil in the morning.

            ```
            basil drooping water
            ```
            A drooping basil needs water and shade.
            Pinch the flowers off.
              Drooping leaves mean the pot is too dry.\t
            """
        #expect(
            Snippet.lines(of: text, query: "my basil is drooping", count: 2)
                == ["basil drooping water", "A drooping basil needs water and shade."])
        #expect(
            Snippet.lines(of: text, query: "drooping", count: 3)
                == ["basil drooping water", "A drooping basil needs water and shade.",
                    "Drooping leaves mean the pot is too dry."])
        // No word in common: the first lines of prose.
        #expect(Snippet.lines(of: text, query: "tomato", count: 1) == ["Water the basil in the morning."])
        #expect(Snippet.lines(of: "\n\n# only a heading\n", query: "heading", count: 3).isEmpty)
    }

    @Test("CRLF text is cut into lines too (\"\\r\\n\" is one Character, so splitting Characters at \"\\n\" did not)")
    func crlf() {
        let text = "first line about wings\r\nsecond line about heat\r\nthird line about wings and heat\r\n"
        #expect(
            Snippet.lines(of: text, query: "heat", count: 2)
                == ["second line about heat", "third line about wings and heat"])
    }

    @Test("words: lowercased as String.lowercased() does, three letters or more, no stop words, marks kept inside")
    func words() {
        #expect(Snippet.words("The WING and its FLOW, at 45 degrees") == ["wing", "flow", "degrees"])
        #expect(Snippet.words("ÉCOLE Straße İZMIR") == ["école", "straße", "i\u{307}zmir"])
        // A decomposed é is a mark inside the word; two letters with a mark are still two letters.
        #expect(Snippet.words("cafe\u{301} be\u{301} résumé") == ["cafe\u{301}", "résumé"])
        for text in ["Ünïcödé WÖRDS straße İstanbul ΣΊΣΥΦΟΣ naïve", "ﬁne ﬂow ǅemal ẞig", "日本語のメモ text"] {
            let expected = text.lowercased().unicodeScalars
                .split { !($0.properties.isAlphabetic || $0.properties.generalCategory == .nonspacingMark) }
                .map { String(String.UnicodeScalarView($0)) }.filter { $0.count >= 3 }
            #expect(Snippet.words(text) == expected, "\(text)")
        }
    }
}
