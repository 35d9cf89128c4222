import CZlib
import TroveIngest

// Shared by the container fuzz targets (zip, ooxml, odf, epub): a stored zip written around the fuzzed parts, and
// the oracle every extracted document must pass.

/// A zip of stored entries with correct CRCs, so the fuzzed bytes reach the XML parsers instead of the CRC check.
func storedZip(_ entries: [(name: String, data: [UInt8])]) -> [UInt8] {
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
    var out: [UInt8] = []
    var directory: [UInt8] = []
    for (name, data) in entries {
        let crc = data.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        let header = le32(crc) + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(name.utf8.count) + le16(0)
        let offset = UInt32(out.count)
        out += le32(0x0403_4b50) + le16(20) + le16(0) + le16(0) + le32(0) + header + Array(name.utf8) + data
        directory += le32(0x0201_4b50) + le16(20) + le16(20) + le16(0) + le16(0) + le32(0) + header
        directory += le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + Array(name.utf8)
    }
    let start = UInt32(out.count)
    return out + directory + le32(0x0605_4b50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
        + le32(UInt32(directory.count)) + le32(start) + le16(0)
}

/// Small caps, so that a fuzzed input reaches them quickly.
func fuzzLimits() -> ExtractionLimits {
    var limits = ExtractionLimits()
    limits.maxOutputBytes = 1 << 16
    limits.maxParts = 50
    limits.maxZipEntryBytes = 1 << 20
    limits.maxZipTotalBytes = 4 << 20
    return limits
}

/// Runs `extract` twice: it fails only with a named container outcome (damaged, encrypted), returns the same result
/// both times, and what it returns is a well-formed document within the caps.
func checkExtraction(_ extract: () throws(ExtractionFailure) -> ExtractedDocument, limits: ExtractionLimits) {
    let first: Result<ExtractedDocument, ExtractionFailure>
    do throws(ExtractionFailure) { first = .success(try extract()) } catch { first = .failure(error) }
    let second: Result<ExtractedDocument, ExtractionFailure>
    do throws(ExtractionFailure) { second = .success(try extract()) } catch { second = .failure(error) }
    precondition(first == second, "extraction is not deterministic")
    switch first {
    case .failure(let failure):
        precondition([.damaged, .encrypted].contains(failure.kind), "failure \(failure)")
        precondition(!failure.detail.isEmpty && !failure.detail.contains("\n"), "failure detail '\(failure.detail)'")
    case .success(let document):
        checkDocument(document, limits: limits)
    }
}

/// The contract's invariants: marks sorted and inside the lines, no line break inside a line, within the caps.
func checkDocument(_ document: ExtractedDocument, limits: ExtractionLimits) {
    let count = document.lines.count
    precondition(document.lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") }, "a line holds a break")
    precondition(document.lines.reduce(0) { $0 + $1.utf8.count + 1 } <= limits.maxOutputBytes, "past the output cap")
    precondition(document.lines.last.map { !$0.isEmpty } ?? true, "ends in a blank line")
    precondition(zip(document.boundaries, document.boundaries.dropFirst()).allSatisfy { $0 < $1 }, "boundaries")
    precondition(document.boundaries.allSatisfy { $0 >= 0 && $0 < count }, "boundary past the end")
    precondition(zip(document.locators, document.locators.dropFirst()).allSatisfy { $0.line < $1.line }, "locators")
    precondition(document.locators.allSatisfy { $0.line >= 0 && $0.line < max(count, 1) && $0.number >= 1 })
    precondition(document.locators.count <= limits.maxParts, "more parts than the cap")
    precondition(zip(document.headings, document.headings.dropFirst()).allSatisfy { $0.line <= $1.line }, "headings")
    precondition(document.headings.allSatisfy { $0.line >= 0 && $0.line < max(count, 1) }, "heading past the end")
}
