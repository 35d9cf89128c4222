import Foundation
import Testing
import TroveIngest
import TroveSystem
import TroveTestSupport

struct DocumentLoaderTests {
    @Test("a file with a NUL byte in its first 8 KiB is skipped as binary")
    func binary() throws {
        let dir = try TemporaryDirectory()
        try dir.write("notes/a.md", data: Data([0x23, 0x20, 0x00, 0x41]))
        let file = CrawledFile(root: dir.path, relativePath: "notes/a.md", size: 4, modifiedNanoseconds: 0)
        #expect(throws: SkippedFile(path: "notes/a.md", reason: .binary)) {
            try DocumentLoader.load(file, maxFileSize: 1 << 20)
        }
        #expect(throws: SkippedFile(path: dir.path + "/notes/a.md", reason: .binary)) {
            try DocumentLoader.load(path: dir.path + "/notes/a.md", maxFileSize: 1 << 20)
        }
        // A NUL after the sniffed prefix is text (with a control character in it).
        var late = [UInt8](repeating: UInt8(ascii: "a"), count: 9000)
        late[8500] = 0
        try dir.write("late.md", data: Data(late))
        #expect(try DocumentLoader.load(path: dir.path + "/late.md", maxFileSize: 1 << 20).text.count == 9000)
    }

    @Test("text no encoding fits (not UTF-8, nothing detected) is replaced with U+FFFD and flagged for a warning")
    func invalidUTF8() throws {
        let dir = try TemporaryDirectory()
        // 0x81 and 0x8D: no character in Windows-1252, not UTF-8, nothing uchardet names.
        let bytes: [UInt8] = [0x61, 0x81, 0x62, 0x8D]
        let path = try dir.write("x.md", data: Data(bytes))
        let document = try DocumentLoader.load(path: path, maxFileSize: 100)
        #expect(document.text == "a\u{FFFD}b\u{FFFD}")
        #expect(document.replacedInvalidUTF8)
        #expect(document.contentHash == SHA256.hex(bytes))
        #expect(document.decodingWarning(displayPath: "notes/x.md") == "notes/x.md: invalid UTF-8 replaced with U+FFFD")
        let clean = try DocumentLoader.load(path: try dir.write("y.md", "héllo"), maxFileSize: 100)
        #expect(!clean.replacedInvalidUTF8)
        #expect(clean.decodingWarning(displayPath: "y.md") == nil)
    }

    @Test("a UTF-8 BOM is dropped from the text but kept in the hash")
    func byteOrderMark() throws {
        let dir = try TemporaryDirectory()
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("# Title\n".utf8)
        let path = try dir.write("bom.md", data: Data(bytes))
        let document = try DocumentLoader.load(path: path, maxFileSize: 100)
        #expect(document.text == "# Title\n")
        #expect(!document.replacedInvalidUTF8)
        #expect(document.contentHash == SHA256.hex(bytes))
    }

    @Test(
        "UTF-16 and UTF-32 with a byte-order mark are decoded, not skipped as binary",
        arguments: [
            ("UTF-16LE", [0xFF, 0xFE] as [UInt8], 2, false), ("UTF-16BE", [0xFE, 0xFF], 2, true),
            ("UTF-32LE", [0xFF, 0xFE, 0x00, 0x00], 4, false), ("UTF-32BE", [0x00, 0x00, 0xFE, 0xFF], 4, true),
        ])
    func wideEncodings(name: String, mark: [UInt8], width: Int, bigEndian: Bool) throws {
        let text = "# Café notes\r\nüber 🦆 naïve\n"
        let units: [UInt32] = width == 2 ? text.utf16.map(UInt32.init) : text.unicodeScalars.map(\.value)
        let body = units.flatMap { unit in
            let bytes = (0..<width).map { UInt8(truncatingIfNeeded: unit >> (8 * UInt32($0))) }
            return bigEndian ? bytes.reversed() : bytes
        }
        let dir = try TemporaryDirectory()
        let path = try dir.write("wide.md", data: Data(mark + body))
        let document = try DocumentLoader.load(path: path, maxFileSize: 1000)
        #expect(document.text == text)
        #expect(document.encoding == name)
        #expect(!document.replacedInvalidUTF8)
        #expect(document.contentHash == SHA256.hex(mark + body))

        // A cut-off last code unit becomes U+FFFD and is reported.
        let cut = try DocumentLoader.load(path: try dir.write("cut.md", data: Data(mark + body.dropLast())), maxFileSize: 1000)
        #expect(cut.text.hasSuffix("\u{FFFD}"))
        #expect(cut.decodingWarning(displayPath: "cut.md") == "cut.md: invalid \(name) replaced with U+FFFD")
    }

    @Test("a lone UTF-16 surrogate becomes U+FFFD; without a BOM, NULs still mean binary")
    func wideInvalid() throws {
        let dir = try TemporaryDirectory()
        let lone = try DocumentLoader.load(
            path: try dir.write("lone.md", data: Data([0xFF, 0xFE, 0x41, 0x00, 0x00, 0xD8, 0x42, 0x00])), maxFileSize: 100)
        #expect(lone.text == "A\u{FFFD}B")
        #expect(lone.replacedInvalidUTF8)
        let noMark = try dir.write("nomark.md", data: Data([0x41, 0x00, 0x42, 0x00]))
        #expect(throws: SkippedFile(path: noMark, reason: .binary)) { try DocumentLoader.load(path: noMark, maxFileSize: 100) }
    }

    @Test("the loader re-checks the size limit and reports missing files and FIFOs as unreadable")
    func loaderSkips() throws {
        let dir = try TemporaryDirectory()
        let big = try dir.write("big.md", String(repeating: "x", count: 300))
        #expect(throws: SkippedFile(path: big, reason: .tooLarge(size: 300, limit: 100))) {
            try DocumentLoader.load(path: big, maxFileSize: 100)
        }
        let missing = CrawledFile(root: dir.path, relativePath: "x.md", size: 0, modifiedNanoseconds: 0)
        let error = #expect(throws: SkippedFile.self) { try DocumentLoader.load(missing, maxFileSize: 100) }
        #expect(error?.description == "skipped x.md: cannot read (no such file or directory)")
        #expect(mkfifo(dir.path + "/pipe.md", 0o644) == 0)
        let pipe = CrawledFile(root: dir.path, relativePath: "pipe.md", size: 0, modifiedNanoseconds: 0)
        #expect(throws: SkippedFile(path: "pipe.md", reason: .unreadable("not a regular file"))) {
            try DocumentLoader.load(pipe, maxFileSize: 100)
        }
    }

    @Test("a CRLF file keeps the line numbers an editor shows")
    func crlfLineNumbers() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("w.md", "# One\r\nfirst\r\n\r\n# Two\r\nsecond\r\nmore\r\n")
        let document = try DocumentLoader.load(path: path, maxFileSize: 1000)
        let chunks = Chunker().chunks(of: document.text, kind: .markdown)
        #expect(chunks.map { [$0.startLine, $0.endLine] } == [[1, 2], [4, 6]])
        #expect(chunks.map(\.text) == ["# One\nfirst", "# Two\nsecond\nmore"])
    }

    struct KindCase: Sendable {
        var path: String
        var kind: DocumentKind?
    }

    @Test(
        "document kinds come from the extension, case-insensitively",
        arguments: [
            ("notes/a.md", DocumentKind.markdown), ("A.MARKDOWN", .markdown), ("x.mdx", .markdown),
            ("a.txt", .plainText), ("README", .plainText), ("license", .plainText), ("CHANGELOG", .plainText),
            ("doc.rst", .restructuredText), ("todo.org", .org), ("main.swift", .code(language: "swift")),
            ("x.PY", .code(language: "python")), ("a.tsx", .code(language: "typescript")),
            ("conf.yml", .code(language: "yaml")), ("Makefile", .code(language: "make")),
            ("lib.rs", .code(language: "rust")), ("k.h", .code(language: "c")), ("c.pdf", .extracted(.pdf)),
            ("page.HTML", .extracted(.html)), ("old.htm", .extracted(.html)), ("talk.pptx", .extracted(.pptx)),
            ("inbox.mbox", .extracted(.mbox)), ("analysis.ipynb", .extracted(.notebook)),
        ] as [(String, DocumentKind)])
    func kinds(path: String, kind: DocumentKind) {
        #expect(DocumentKind(path: path) == kind)
    }

    @Test(
        "images, data, archives and unknown names are not indexed",
        arguments: ["a.png", "b.jpg", "d.json", "e.zip", "f.csv", "Random", "g.", "h.bin", "x.log"])
    func notIndexed(path: String) {
        #expect(DocumentKind(path: path) == nil)
    }
}
