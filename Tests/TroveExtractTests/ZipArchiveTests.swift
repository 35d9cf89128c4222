import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct ZipArchiveTests {
    @Test func readsStoredAndDeflatedEntriesOfARealArchive() throws {
        var archive = try ZipArchive(try fixture("docx/par-known-styles.docx"), limits: ExtractionLimits())
        #expect(archive.contains("word/document.xml"))
        let types = try #require(try archive.read("[Content_Types].xml"))
        #expect(String(decoding: types, as: UTF8.self).contains("wordprocessingml"))
        #expect(try archive.read("no/such/entry") == nil)

        var written = try ZipArchive(
            ZipWriter.archive([.init("a.txt", "stored text", deflate: false), .init("b/c.xml", "<x>deflated</x>")]),
            limits: ExtractionLimits())
        #expect(try written.read("a.txt") == Array("stored text".utf8))
        #expect(try written.read("b/c.xml") == Array("<x>deflated</x>".utf8))
    }

    @Test func readsZip64Entries() throws {
        var entry = ZipWriter.Entry("big.xml", "<x>fits</x>")
        entry.zip64 = true
        var archive = try ZipArchive(ZipWriter.archive([entry]), limits: ExtractionLimits())
        #expect(try archive.read("big.xml") == Array("<x>fits</x>".utf8))
    }

    @Test func refusesWhatIsNotAZipNamingWhatItIs() {
        let pdf = Array("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n".utf8)
        #expect(throws: damaged("not a zip archive (the file is a PDF)")) {
            try ZipArchive(pdf, limits: ExtractionLimits())
        }
        #expect(throws: damaged("not a zip archive")) {
            try ZipArchive((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, limits: ExtractionLimits())
        }
        let real = (try? fixture("docx/par-known-styles.docx")) ?? []
        #expect(throws: ExtractionFailure.self) { try ZipArchive(Array(real.prefix(real.count / 2)), limits: .init()) }
    }

    @Test func refusesAZipBombByItsDeclaredSize() throws {
        let (compressed, crc) = ZipWriter.deflatedZeros(80 << 20)
        let entry = ZipWriter.Entry("word/document.xml", bytes: []).sized(80 << 20)
        let bomb = ZipWriter.archive([(entry, compressed, crc)])
        var archive = try ZipArchive(bomb, limits: ExtractionLimits())
        #expect(throws: damaged("zip entry word/document.xml declares 80.0 MB (over the 64.0 MB cap)")) {
            try archive.read("word/document.xml")
        }
    }

    @Test func refusesAZip64BombDeclaringAGibibyte() throws {
        let (compressed, crc) = ZipWriter.deflatedZeros(1 << 30)
        var entry = ZipWriter.Entry("word/document.xml", bytes: []).sized(1 << 30)
        entry.zip64 = true
        var archive = try ZipArchive(ZipWriter.archive([(entry, compressed, crc)]), limits: ExtractionLimits())
        #expect(throws: damaged("zip entry word/document.xml declares 1.0 GB (over the 64.0 MB cap)")) {
            try archive.read("word/document.xml")
        }
    }

    @Test func refusesSizesThatLie() throws {
        // Declares 1 MB but inflates to 8 MB: caught one byte past the declared size, never inflated whole.
        let (compressed, crc) = ZipWriter.deflatedZeros(8 << 20)
        var archive = try ZipArchive(
            ZipWriter.archive([(ZipWriter.Entry("content.xml", bytes: []).sized(1 << 20), compressed, crc)]),
            limits: ExtractionLimits())
        #expect(throws: damaged("zip entry content.xml inflates past its declared size (lying sizes)")) {
            try archive.read("content.xml")
        }
        var short = ZipWriter.Entry("short.xml", "<x/>")
        short.declaredSize = 100
        var stored = ZipWriter.Entry("stored.xml", "<x/>", deflate: false)
        stored.declaredSize = 3
        var lying = try ZipArchive(ZipWriter.archive([short, stored]), limits: ExtractionLimits())
        #expect(throws: damaged("zip entry short.xml inflates to less than its declared size (lying sizes)")) {
            try lying.read("short.xml")
        }
        #expect(throws: damaged("zip entry stored.xml is stored but its two sizes differ")) {
            try lying.read("stored.xml")
        }
    }

    @Test func capsTheRatioTheTotalAndTheEntryCount() throws {
        let zeros = [UInt8](repeating: 0, count: 2 << 20)
        var ratio = try ZipArchive(ZipWriter.archive([.init("zeros.xml", bytes: zeros)]), limits: ExtractionLimits())
        #expect(throws: damaged("zip entry zeros.xml would inflate more than 100:1 (a zip bomb?)")) {
            try ratio.read("zeros.xml")
        }
        var limits = ExtractionLimits()
        limits.maxZipTotalBytes = 10
        var total = try ZipArchive(ZipWriter.archive([.init("a", "123456"), .init("b", "123456")]), limits: limits)
        _ = try total.read("a")
        #expect(throws: damaged("zip entries inflate past 10 bytes in all")) { try total.read("b") }
        limits = ExtractionLimits()
        limits.maxZipEntries = 3
        let many = ZipWriter.archive((0..<4).map { ZipWriter.Entry("e\($0)", "x") })
        #expect(throws: damaged("zip archive holds 4 entries (over the 3 cap)")) {
            try ZipArchive(many, limits: limits)
        }
    }

    @Test func refusesEncryptedEntriesAndBadCRCs() throws {
        var secret = ZipWriter.Entry("word/document.xml", "<x/>")
        secret.flags = 1
        var encrypted = try ZipArchive(ZipWriter.archive([secret]), limits: ExtractionLimits())
        let refusal = ExtractionFailure(.encrypted, "zip entry word/document.xml is encrypted (a password is needed)")
        #expect(throws: refusal) {
            try encrypted.read("word/document.xml")
        }
        var bytes = ZipWriter.archive([.init("a.txt", "some stored text", deflate: false)])
        bytes[30 + 5] ^= 0xFF  // a byte of the stored data
        var corrupt = try ZipArchive(bytes, limits: ExtractionLimits())
        #expect(throws: damaged("zip entry a.txt fails its CRC check")) {
            try corrupt.read("a.txt")
        }
    }

    @Test func resolvesReferencesBetweenParts() {
        #expect(ZipPath.resolve("slides/slide1.xml", from: "ppt/presentation.xml") == "ppt/slides/slide1.xml")
        #expect(ZipPath.resolve("../notesSlides/n%201.xml", from: "ppt/slides/slide1.xml") == "ppt/notesSlides/n 1.xml")
        #expect(ZipPath.resolve("/word/document.xml", from: "/") == "word/document.xml")
        #expect(ZipPath.resolve("ch1.xhtml#part2", from: "OEBPS/content.opf") == "OEBPS/ch1.xhtml")
        #expect(ZipPath.resolve("../../../../etc/passwd", from: "a/b.xml") == "etc/passwd")
        #expect(ZipPath.resolve("https://example.com/x", from: "a/b.xml") == nil)
        #expect(ZipPath.resolve("#only-a-fragment", from: "a/b.xml") == nil)
    }
}

extension ZipWriter.Entry {
    /// The entry declaring `size` inflated bytes.
    fileprivate func sized(_ size: UInt64) -> Self {
        var entry = self
        entry.declaredSize = size
        return entry
    }
}
