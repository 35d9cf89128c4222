import Foundation
import Testing
import TroveTestSupport
import TroveTestTraits

/// `trove` sits beside the test bundle in the build folder.
let troveExecutable: String = {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "trove")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
    return repositoryRoot + "/.build/debug/trove"
}()

@Suite("trove web as a process", .offCooperativePool, .serialized)
struct WebCommandTests {
    @Test("ready within a second: it prints the URL with a fresh token, serves the page, and Ctrl-C stops it")
    func starts() async throws {
        let rig = try await WebRig()
        for round in 0..<2 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: troveExecutable)
            process.arguments = ["web", "--index", rig.indexPath, "--ollama", rig.ollama.baseURL.absoluteString]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            #expect(ContinuousClock.now - start < .seconds(1), "round \(round)")
            let match = try #require(line.firstMatch(of: /^http:\/\/127\.0\.0\.1:(\d+)\/#token=([0-9a-f]{64})\n$/))
            let port = try #require(UInt16(match.1))
            let connection = try RawConnection(port: port)
            try connection.write("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(RawResponse(try connection.readAll()).status == 200)
            process.interrupt()
            process.waitUntilExit()
            #expect(process.terminationStatus == 130)
        }
    }

    @Test("an address other machines reach needs --allow-remote")
    func remote() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: troveExecutable)
        process.arguments = ["web", "--host", "0.0.0.0", "--index", "/nonexistent/i.sqlite"]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("--host 0.0.0.0 lets other machines reach the index — add --allow-remote"))
    }
}
