import Testing
import TroveIngest

@testable import TroveExtract

/// Headings carry the id a link to their section uses: their own, one inside them, an enclosing section's, or an
/// `<a name>` just before them (sqlite3-doc pages).
@Suite struct HTMLAnchorTests {
    @Test func eachHeadingTakesTheNearestIdBeforeItsText() throws {
        let document = try HTMLExtractorTests.extract("""
            <html><body><p id="intro">Intro text.</p>
            <h1 id="own">Own id</h1><p>One.</p>
            <section id="install"><h2>Install</h2><p>Two.</p></section>
            <a name="legacy"></a><h2>Legacy anchor</h2><p>Three.</p>
            <h2><a id="inner">Inner id</a></h2><p>Four.</p>
            <h2>No id</h2><p>Five.</p></body></html>
            """)
        #expect(document.headings.map(\.anchor) == ["own", "install", "legacy", "inner", nil])
        #expect(document.headings.map(\.path.last) == ["Own id", "Install", "Legacy anchor", "Inner id", "No id"])
    }

    @Test func aRealSqliteDocPageGivesItsAnchors() throws {
        let document = try HTMLExtractor.extract(
            try HTMLExtractorTests.fixture("html", "lockingv3.html"), limits: ExtractionLimits())
        let anchors = Dictionary(
            document.headings.compactMap { heading in heading.anchor.map { (heading.path.last ?? "", $0) } },
            uniquingKeysWith: { first, _ in first })
        #expect(anchors["3.0 Locking"] == "locking")
        #expect(anchors["4.1 Dealing with hot journals"] == "hot_journals")
    }
}
