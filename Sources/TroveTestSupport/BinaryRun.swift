import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What one run of `trove` (a child process, or in-process in the CLI tests) printed and returned.
public struct Invocation: Sendable {
    public var status: Int32
    public var output: String
    public var error: String

    /// A finished run.
    public init(status: Int32, output: String, error: String) {
        self.status = status
        self.output = output
        self.error = error
    }
}

/// The built `trove`, beside the test bundle in the build folder.
public let troveExecutable = URL(fileURLWithPath: builtProduct("trove"))

/// Runs the built `trove` executable as a child process, the way a user or a script does. The wait happens on a
/// thread of its own: blocking one of the few cooperative threads would stall every other test meanwhile.
/// `input` is written to its standard input; with `interruptOnOutput` it gets SIGINT (Ctrl-C) once it has printed
/// something, as a user would press it mid-answer.
public func runBinary(
    _ arguments: [String], environment: [String: String], input: String? = nil, interruptOnOutput: Bool = false,
    executable: URL = troveExecutable
) async throws -> Invocation {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    try runBinaryBlocking(
                        arguments, environment: environment, input: input, interruptOnOutput: interruptOnOutput,
                        executable: executable)
                })
        }.start()
    }
}

private final class DataBox: @unchecked Sendable {  // written by one thread, read after it is joined
    var data = Data()
}

private func runBinaryBlocking(
    _ arguments: [String], environment: [String: String], input: String?, interruptOnOutput: Bool, executable: URL
) throws -> Invocation {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment.merging(["HOME": NSTemporaryDirectory(), "SWIFT_BACKTRACE": "enable=no"]) { $1 }
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
    try standardInput.fileHandleForWriting.close()
    // Both pipes are drained at once, so a chatty child cannot fill one and stall.
    let errors = DataBox()
    let done = DispatchSemaphore(value: 0)
    let errorHandle = error.fileHandleForReading
    Thread {
        errors.data = errorHandle.readDataToEndOfFile()
        done.signal()
    }.start()
    var outData = Data()
    var interrupted = false
    while true {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        outData.append(chunk)
        if interruptOnOutput && !interrupted {
            interrupted = true
            kill(process.processIdentifier, SIGINT)
        }
    }
    done.wait()
    process.waitUntilExit()
    return Invocation(
        status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
        error: String(decoding: errors.data, as: UTF8.self))
}
