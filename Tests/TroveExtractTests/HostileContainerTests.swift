import Foundation
import Testing
import TroveIngest
import TroveTestSupport

@testable import TroveExtract

/// Issue 27's hostile files for the zip containers: each ends in a named failure (or in text without the hostile
/// part), never in a crash, a hang or a leak of a local file.
@Suite struct HostileContainerTests {
    static let laughs = """
        <?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
        <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">\
        <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">\
        <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">\
        <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;"><!ENTITY j "&i;&i;&i;&i;&i;&i;&i;&i;&i;&i;">]>
        """

    @Test func billionLaughsInADocumentIsDamaged() {
        let bytes = WordFile.bytes(body: "<w:p><w:r><w:t>&j;</w:t></w:r></w:p>", prolog: Self.laughs)
        #expect(throws: damaged("word/document.xml is not well-formed XML (entity loop (billion laughs?), line 1)")) {
            try DOCXExtractor.extract(bytes, limits: ExtractionLimits())
        }
    }

    @Test func anExternalEntityNeverReadsTheLocalFile() throws {
        let folder = try TemporaryDirectory()
        let secret = folder.path + "/secret.txt"
        try "TROVE-XXE-MARKER-7f3a".write(toFile: secret, atomically: true, encoding: .utf8)
        let prolog = "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY x SYSTEM \"file://\(secret)\">]>"
        let docx = WordFile.bytes(body: "<w:p><w:r><w:t>before &x; after</w:t></w:r></w:p>", prolog: prolog)
        let odt = OpenDocument.bytes(body: "<text:p>before &x; after</text:p>", prolog: prolog.replacingOccurrences(
            of: "w:document", with: "office:document-content"))
        let docxLines = (try? DOCXExtractor.extract(docx, limits: ExtractionLimits()))?.lines ?? []
        let odtLines = (try? ODTExtractor.extract(odt, limits: ExtractionLimits()))?.lines ?? []
        // XMLParser drops the reference (and, as it happens, the rest of that text node), never reading the file.
        #expect(docxLines.first == "before" && !docxLines.joined().contains("TROVE-XXE-MARKER"))
        #expect(odtLines.first == "before" && !odtLines.joined().contains("TROVE-XXE-MARKER"))
        // odfpy's own XXE fixture names a relative file; nothing of it is read either.
        let nasty = try ODTExtractor.extract(try fixture("odt/nasty.odt"), limits: ExtractionLimits())
        #expect(nasty.lines == ["Test:"])
    }

    @Test func deepNestingIsDamaged() {
        var limits = ExtractionLimits()
        limits.maxNesting = 64
        let nested = String(repeating: "<w:sdt>", count: 100) + String(repeating: "</w:sdt>", count: 100)
        #expect(throws: damaged("word/document.xml nests elements deeper than 64")) {
            try DOCXExtractor.extract(WordFile.bytes(body: nested), limits: limits)
        }
        // Far deeper than any cap: whichever stops it first (ours or libxml2's), it is damaged, not a stack overflow.
        let deep = String(repeating: "<w:sdt>", count: 100_000) + String(repeating: "</w:sdt>", count: 100_000)
        #expect(throws: ExtractionFailure.self) {
            try DOCXExtractor.extract(WordFile.bytes(body: deep), limits: ExtractionLimits())
        }
    }

    @Test func aDocxThatIsReallyAPDFIsNamed() {
        let pdf = Array("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)
        let refusal = damaged("not a zip archive (the file is a PDF)")
        #expect(throws: refusal) { try DOCXExtractor.extract(pdf, limits: ExtractionLimits()) }
        #expect(throws: refusal) { try PPTXExtractor.extract(pdf, limits: ExtractionLimits()) }
        #expect(throws: refusal) { try ODTExtractor.extract(pdf, limits: ExtractionLimits()) }
    }

    @Test func aZipBombDocumentIsDamagedBeforeItInflates() {
        let (compressed, crc) = ZipWriter.deflatedZeros(100 << 20)
        var entries = WordFile.entries(body: "").map { ($0, ZipWriter.deflated($0.data), ZipWriter.crc($0.data)) }
        var bomb = ZipWriter.Entry("word/document.xml", bytes: [])
        bomb.declaredSize = 100 << 20
        entries[entries.count - 1] = (bomb, compressed, crc)
        #expect(throws: damaged("zip entry word/document.xml declares 100.0 MB (over the 64.0 MB cap)")) {
            try DOCXExtractor.extract(ZipWriter.archive(entries), limits: ExtractionLimits())
        }
        // The same bomb declaring a small size is stopped one byte past it.
        bomb.declaredSize = 4096
        entries[entries.count - 1] = (bomb, compressed, crc)
        #expect(throws: damaged("zip entry word/document.xml inflates past its declared size (lying sizes)")) {
            try DOCXExtractor.extract(ZipWriter.archive(entries), limits: ExtractionLimits())
        }
    }

    @Test func aMissingMainPartIsNamed() {
        let bytes = ZipWriter.archive([.init("readme.txt", "just a zip")])
        #expect(throws: damaged("no word/document.xml in the zip (not a Word document)")) {
            try DOCXExtractor.extract(bytes, limits: ExtractionLimits())
        }
        #expect(throws: damaged("no ppt/presentation.xml in the zip (not a PowerPoint deck)")) {
            try PPTXExtractor.extract(bytes, limits: ExtractionLimits())
        }
        #expect(throws: damaged("no content.xml in the zip (not an OpenDocument file)")) {
            try ODTExtractor.extract(bytes, limits: ExtractionLimits())
        }
    }
}
