import TroveIngest

// Fuzz target: ZipArchive, the zip reader under every container (DOCX, ODT, PPTX, EPUB), on raw bytes.
// Oracle: reading any entry returns exactly its declared size (CRC checked inside) or fails with damaged or, only for
// an entry flagged so, encrypted; the entries read never add up past the total cap; reading is deterministic.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = fuzzLimits()
    var archive: ZipArchive
    do throws(ExtractionFailure) {
        archive = try ZipArchive(bytes, limits: limits)
    } catch {
        precondition(error.kind == .damaged, "opening failed with \(error)")
        return 0
    }
    precondition(archive.entries.count <= limits.maxZipEntries, "more entries than the cap")
    var total = 0
    for entry in archive.entries.prefix(64) {
        // Duplicate names read the first entry of that name.
        let first = archive.entries.first { $0.name == entry.name }!
        do throws(ExtractionFailure) {
            guard let inflated = try archive.read(entry.name) else { preconditionFailure("a listed entry is missing") }
            precondition(UInt64(inflated.count) == first.size, "read \(inflated.count) of a declared \(first.size)")
            precondition(!first.isEncrypted, "an encrypted entry was read")
            total += inflated.count
            precondition(total <= limits.maxZipTotalBytes, "past the total cap")
            var again = try ZipArchive(bytes, limits: limits)
            let reread = try again.read(entry.name)
            precondition(reread == inflated, "reading is not deterministic")
        } catch {
            precondition(error.kind == .damaged || (error.kind == .encrypted && first.isEncrypted), "\(error)")
        }
    }
    return 0
}
