// Fuzz target: the `INDEX.vectors` header reader (`VectorCache.checkedShape`). Input: 64 header bytes, 8 bytes of
// claimed file size, then the key's dimension. Oracles: no trap on any bytes; an accepted shape fits the file
// exactly (size = 64 + count·(8 + 4·dimension), no overflow) and carries the key's dimension.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 80 else { return 0 }
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    var header = [UInt64](repeating: 0, count: 8)
    for index in 0..<8 { header[index] = raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self) }
    let fileSize = raw.loadUnaligned(fromByteOffset: 64, as: Int64.self)
    let dimension = Int(raw.loadUnaligned(fromByteOffset: 72, as: UInt16.self))
    // Half the inputs carry the magic and the key, so the checks past them are reached.
    if raw[76] & 1 == 1 { header[0] = VectorCache.magic }
    let key = VectorCache.Key(
        dimension: dimension, chunkCount: Int(truncatingIfNeeded: header[3]), maxChunkID: Int64(bitPattern: header[4]),
        fingerprint: header[5], inode: header[6])
    if raw[76] & 2 == 2 { header[2] = UInt64(dimension) }
    guard let shape = VectorCache.checkedShape(header, key: key, fileSize: fileSize) else { return 0 }
    precondition(shape.dimension == key.dimension && shape.count >= 0 && shape.count <= key.chunkCount)
    let (body, overflow) = shape.count.multipliedReportingOverflow(by: 8 + 4 * shape.dimension)
    precondition(!overflow && Int64(64 + body) == fileSize, "accepted a shape that does not fit the file")
    return 0
}
