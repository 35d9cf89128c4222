@preconcurrency import Glibc
import Foundation

/// A `.safetensors` file mapped into memory read-only: tensors are pointers into the mapping, never copies.
package final class SafeTensors: @unchecked Sendable {
    // @unchecked: the mapping is read-only and immutable after init; unmapped only in deinit.

    /// One tensor's place in the file.
    package struct Tensor: Sendable {
        package var dtype: String
        package var shape: [Int]
        /// Byte range within the data section (after the header).
        package var offsets: Range<Int>
    }

    /// The path the file was mapped from.
    package let path: String
    /// Tensors by name (the `__metadata__` entry left out).
    package let tensors: [String: Tensor]
    /// Device, inode, size and times of the file mapped, from the same descriptor.
    let identity: FileIdentity
    /// The whole file, as mapped.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: length) }
    private let base: UnsafeRawPointer
    private let length: Int
    private let dataStart: Int

    /// Maps `path` and parses its JSON header (`SafeTensorsHeader`).
    package init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw MiniLMError(.missingFile, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 8 else {
            throw MiniLMError(.badFile, "\(path) is not a safetensors file: shorter than its 8-byte header length")
        }
        length = Int(info.st_size)
        identity = FileIdentity(info)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw MiniLMError(.badFile, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(mapped)
        // Untrusted: a damaged file's length may not fit an Int, so it is converted with `exactly:`.
        let rawLength = base.loadUnaligned(as: UInt64.self).littleEndian
        guard let headerLength = Int(exactly: rawLength), headerLength > 0, headerLength <= length - 8 else {
            munmap(mapped, length)
            throw MiniLMError(
                .badFile,
                "\(path) is not a safetensors file: header length \(rawLength) out of range (file of \(length) bytes)"
                    + " — reinstall the model: \(ModelFolder.installCommand)")
        }
        dataStart = 8 + headerLength
        guard let entries = SafeTensorsHeader.parse(UnsafeRawBufferPointer(start: base + 8, count: headerLength))
        else {
            munmap(mapped, length)
            throw MiniLMError(.badFile, "\(path) is not a safetensors file: its header is not a JSON object")
        }
        var tensors: [String: Tensor] = [:]
        for (name, entry) in entries where name != "__metadata__" {
            guard let dtype = entry.dtype, let shape = entry.shape, let offsets = entry.offsets, offsets.count == 2,
                offsets[0] >= 0, offsets[0] <= offsets[1], offsets[1] <= length - dataStart, shape.allSatisfy({ $0 >= 0 })
            else {
                munmap(mapped, length)
                throw MiniLMError(.badFile, "\(path): tensor '\(name)' has a malformed header entry")
            }
            tensors[name] = Tensor(dtype: dtype, shape: shape, offsets: offsets[0]..<offsets[1])
        }
        self.tensors = tensors
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// The float32 data of `name`, checked against `shape`; points into the mapping.
    package func floats(_ name: String, shape: [Int]) throws -> UnsafePointer<Float> {
        guard let tensor = tensors[name] else {
            throw MiniLMError(.badFile, "\(path) has no tensor '\(name)' — reinstall the model: \(ModelFolder.installCommand)")
        }
        guard tensor.dtype == "F32", tensor.shape == shape, tensor.offsets.count == Self.byteCount(shape) else {
            throw MiniLMError(
                .badFile,
                "\(path): tensor '\(name)' is \(tensor.dtype) \(tensor.shape), expected F32 \(shape)")
        }
        let start = dataStart + tensor.offsets.lowerBound
        guard start % MemoryLayout<Float>.alignment == 0 else {
            throw MiniLMError(.badFile, "\(path): tensor '\(name)' is not 4-byte aligned")
        }
        return (base + start).assumingMemoryBound(to: Float.self)
    }

    /// Bytes of a float32 tensor of `shape`; nil when the product overflows.
    static func byteCount(_ shape: [Int]) -> Int? {
        var bytes = 4
        for extent in shape {
            let (product, overflow) = bytes.multipliedReportingOverflow(by: extent)
            if overflow { return nil }
            bytes = product
        }
        return bytes
    }
}
