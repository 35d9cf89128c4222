import Foundation
import TroveIngest
import TroveStore
import TroveSystem

/// A chunker change (its version or parameters) without reading any file again: every document is chunked anew
/// from the index's own text (and, for a PDF, web page, …, its stored structure), and only passages whose text
/// changed are embedded; the others keep their vectors.
extension IndexRun {
    /// Chunks every document of the index again with this run's chunker, writing only those whose chunks differ.
    /// Idempotent, so a stopped pass is simply run again (the manifest changes only once it is complete).
    mutating func rechunk(report: (IndexEvent) -> Void) async throws {
        defer { cancelInFlight() }
        for root in try store.roots() {
            let rootID = try store.inTransaction { try store.rootID(forPath: root.path) }
            for (path, stored) in try store.documents(inRoot: rootID).sorted(by: { $0.key < $1.key }) {
                if stopped { break }
                guard let text = try store.documentText(rootPath: root.path, path: path) else { continue }
                let chunks = try rechunked(text, path: path)
                let unchanged =
                    chunks.count == text.chunks.count
                    && zip(chunks, text.chunks).allSatisfy { new, old in
                        new.startLine == old.startLine && new.endLine == old.endLine && new.text == old.text
                            && new.headingPath.joined(separator: " › ") == old.heading
                            && new.locator?.stored == old.locator
                    }
                if unchanged { continue }
                let document = NewDocument(
                    rootID: rootID, path: path, size: stored.size, modifiedNanoseconds: stored.modifiedNanoseconds,
                    contentHash: stored.contentHash, extraction: text.extraction)
                let hashes = chunks.map { SHA256.hex(EmbeddingText.forChunk($0).utf8) }
                try await enqueue(
                    Item(document: document, existingID: stored.id, chunks: chunks, hashes: hashes, rechunked: true),
                    report: report)
            }
        }
        try await finishBatches(report: report)
    }

    /// The chunks this run's chunker makes of a stored document: its lines rebuilt from its chunks, with the
    /// stored structure of an extracted document (headings, boundaries, locators).
    func rechunked(_ text: StoredDocumentText, path: String) throws -> [Chunk] {
        // Stored by first line and then in chunk order, which is how pieces of one line follow each other.
        let lines = Chunker.rendition(of: text.chunks.map { ($0.startLine, $0.endLine, $0.text) })
        if let extraction = text.extraction {
            var document: ExtractedDocument
            do {
                document = try JSONDecoder().decode(ExtractedDocument.self, from: Data(extraction.structure.utf8))
            } catch {
                throw IndexError(
                    code: .chunkerMismatch,
                    message: "the stored structure of \(path) cannot be read (\(error)) — run trove index --reextract")
            }
            document.lines = lines
            return chunker.chunks(of: document)
        }
        return chunker.chunks(of: lines.joined(separator: "\n"), kind: DocumentKind(path: path) ?? .plainText)
    }
}
