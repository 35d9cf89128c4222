import Foundation
import TroveExtract
import TroveIngest
import TroveStore
import TroveSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Files of extracted formats (PDF, HTML, DOCX, …): opened once, hashed by streaming, handed to the extraction
/// worker as the open descriptor; a copy or move of an indexed one reuses its chunks, a failure is remembered.
extension IndexRun {
    /// The item to commit for `file`, or nil when it is skipped (reported and counted here).
    mutating func extractedItem(
        _ file: CrawledFile, format: DocumentFormat, old: StoredDocument?, rootID: Int64,
        report: (IndexEvent) -> Void
    ) async throws -> Item? {
        let path = file.relativePath
        guard let extraction, ExtractorRegistry.reader(for: format) != nil else {
            summary.skip("no reader")
            report(.skipped("skipped \(path): this trove cannot read \(format.rawValue) files yet"))
            return nil
        }
        let descriptor = open(file.absolutePath, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let skipped = SkippedFile(path: path, reason: .unreadable(POSIXFile.errorText(errno)))
            summary.skip(Self.reason(skipped.reason))
            report(.skipped(skipped.description))
            return nil
        }
        defer { close(descriptor) }
        guard let hash = Self.streamedHash(descriptor) else {
            let skipped = SkippedFile(path: path, reason: .unreadable(POSIXFile.errorText(errno)))
            summary.skip(Self.reason(skipped.reason))
            report(.skipped(skipped.description))
            return nil
        }
        var document = NewDocument(
            rootID: rootID, path: path, size: file.size, modifiedNanoseconds: file.modifiedNanoseconds,
            contentHash: hash)
        if let old, old.contentHash == hash, !reextract {
            return Item(document: document, existingID: old.id, chunks: nil, hashes: [])
        }
        if !retryFailed, let failure = try store.extractionFailure(contentHash: hash, extractor: format.rawValue),
            !(retryScans && failure.kind == ExtractionFailure.Kind.noTextLayer.rawValue)
        {
            // Remembered: counted in the summary, without a line per file on every run.
            let kind = ExtractionFailure.Kind(rawValue: failure.kind)
            countFailure(format: format, kind: failure.kind, counted: kind?.counted ?? failure.kind)
            summary.failuresRemembered += 1
            return nil
        }
        if !reextract, let stored = try store.reusableExtraction(contentHash: hash, format: format.rawValue) {
            // A copy or a move of a document already read: its chunks, vectors and locators, no extraction.
            document.extraction = stored.extraction
            let chunks = stored.chunks.map(Self.chunk)
            return Item(
                document: document, existingID: old?.id, chunks: chunks, hashes: stored.chunks.map(\.contentHash))
        }
        let extracted: ExtractedDocument
        do throws(ExtractionFailure) {
            // The worker (or pdftotext) reads from the descriptor's offset, which the hash moved to the end.
            guard lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw ExtractionFailure(.damaged, "cannot read it again (\(POSIXFile.errorText(errno)))")
            }
            extracted = try await extraction.extract(descriptor: descriptor, format: format)
        } catch {
            if error.kind.remembered {
                try store.recordExtractionFailure(
                    contentHash: hash, extractor: format.rawValue,
                    failure: StoredExtractionFailure(kind: error.kind.rawValue, detail: error.detail))
            }
            countFailure(format: format, kind: error.kind.rawValue, counted: error.kind.counted)
            report(.skipped(error.warning(path: path)))
            return nil
        }
        // A mailbox past the text cap: what fits is indexed, the rest counted in one line.
        if let truncation = extracted.truncation { report(.warning(truncation.warning(path: path))) }
        // A declared or detected charset other than UTF-8 (an HTML page in windows-1252, a mail in ISO-2022-JP).
        if let encoding = extracted.encoding, encoding.uppercased() != "UTF-8" {
            report(.decoded(path: path, encoding: encoding))
        }
        document.extraction = StoredExtraction(
            format: format.rawValue, extractor: extracted.extractor, structure: try Self.structure(of: extracted))
        let chunks = chunker.chunks(of: extracted)
        return Item(
            document: document, existingID: old?.id, chunks: chunks,
            hashes: chunks.map { SHA256.hex(EmbeddingText.forChunk($0).utf8) })
    }

    /// Counts a file of `format` that could not be read: as a skipped file (under `counted`, the words of the text
    /// summary) and under its format and outcome (`kind`, `ExtractionFailure.Kind`'s name, for JSON).
    mutating func countFailure(format: DocumentFormat, kind: String, counted: String) {
        summary.skip(counted)
        summary.extractionFailures[format.rawValue, default: [:]][kind, default: 0] += 1
    }

    /// SHA-256 of everything `descriptor` reads, in 1 MiB blocks (the file is never held whole); nil on a read error.
    static func streamedHash(_ descriptor: Int32) -> String? {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { FileDescriptor(descriptor).read(into: $0) }
            if count < 0 { return nil }
            if count == 0 { break }
            buffer.withUnsafeBufferPointer { hasher.update(UnsafeBufferPointer(rebasing: $0[0..<count])) }
        }
        return hasher.finalizeHex()
    }

    /// The rendition's structure without its lines, as stored with the document (`StoredExtraction.structure`).
    static func structure(of document: ExtractedDocument) throws -> String {
        var shape = document
        shape.lines = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(shape), as: UTF8.self)
    }

    /// A stored chunk of an extracted document as the chunker would make it again.
    static func chunk(_ stored: NewChunk) -> Chunk {
        Chunk(
            ordinal: stored.ordinal, startLine: stored.startLine, endLine: stored.endLine,
            headingPath: stored.heading.isEmpty ? [] : stored.heading.components(separatedBy: " › "),
            text: stored.text, locator: stored.locator.flatMap(PassageLocator.init(stored:)))
    }
}

extension PassageLocator {
    /// A locator read from the store; nil for a kind this trove does not know (a passage then shows its lines only).
    init?(stored: StoredLocator) {
        guard let kind = LocatorKind(rawValue: stored.kind) else { return nil }
        self.init(kind: kind, first: stored.first, last: stored.last, approximate: stored.approximate)
    }

    /// The locator as the store keeps it.
    var stored: StoredLocator {
        StoredLocator(kind: kind.rawValue, first: first, last: last, approximate: approximate)
    }
}
