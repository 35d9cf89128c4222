import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

@Suite("trove web as a process", .offCooperativePool, .serialized)
struct WebCommandTests {
    @Test("ready within a second: it prints the URL with a fresh token, serves the page, and Ctrl-C stops it")
    func starts() async throws {
        let rig = try await WebRig()
        for round in 0..<2 {
            let process = Process()
            process.executableURL = troveExecutable
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

    @Test("an address other machines reach needs --allow-remote, IPv4 or IPv6", arguments: ["0.0.0.0", "::", "[::]"])
    func remote(host: String) throws {
        let process = Process()
        process.executableURL = troveExecutable
        process.arguments = ["web", "--host", host, "--index", "/nonexistent/i.sqlite"]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        #expect(message.contains("--host \(bare) lets other machines reach the index — add --allow-remote"))
    }

    /// Starts `trove web` with `arguments` over `rig`'s index; its process, port and token once it printed the URL.
    static func start(_ rig: WebRig, _ arguments: [String]) throws -> (process: Process, port: UInt16, token: String) {
        let process = Process()
        process.executableURL = troveExecutable
        process.arguments =
            ["web", "--index", rig.indexPath, "--ollama", rig.ollama.baseURL.absoluteString] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let match = line.firstMatch(of: /:(\d+)\/#token=([0-9a-f]{64})\n$/), let port = UInt16(match.1) else {
            process.interrupt()
            throw POSIXError(.EPROTO)
        }
        return (process, port, String(match.2))
    }

    @Test("--host [::1] listens on IPv6 loopback without --allow-remote, and prints its URL in brackets")
    func ipv6() async throws {
        let rig = try await WebRig()
        let (process, port, token) = try Self.start(rig, ["--host", "[::1]"])
        defer { process.interrupt(); process.waitUntilExit() }
        let connection = try RawConnection(port: port, address: "::1")
        try connection.write(
            "GET /api/status HTTP/1.1\r\nHost: [::1]:\(port)\r\nAuthorization: Bearer \(token)\r\n"
                + "Connection: close\r\n\r\n")
        #expect(RawResponse(try connection.readAll()).status == 200)
    }

    @Test("--chat-base-url offers an OpenAI-compatible chat server beside Ollama; --base-url alone (embedding) does not")
    func offeredChatServers() async throws {
        let rig = try await WebRig()
        let closed = try ClosedPort()
        let down = "http://127.0.0.1:\(closed.port)/v1"
        let cases = [(["--chat-base-url", down], ["ollama", "openai"]), (["--base-url", down], ["ollama"])]
        for (arguments, offered) in cases {
            let (process, port, token) = try Self.start(rig, arguments)
            defer { process.interrupt(); process.waitUntilExit() }
            let connection = try RawConnection(port: port)
            try connection.write(
                "GET /api/models HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
                    + "Connection: close\r\n\r\n")
            let models = JSON.parse(Data(RawResponse(try connection.readAll()).body.utf8))
            let servers = models?["providers"]?.arrayValue ?? []
            #expect(servers.map { $0["provider"]?.stringValue ?? "" } == offered, "\(arguments)")
            // A server that cannot be asked says why, and the page shows it as not reachable.
            if offered.count == 2 { #expect(servers.last?["error"]?.stringValue?.isEmpty == false) }
            #expect(servers.first?["models"]?.arrayValue?.contains("llama3.2:latest") == true)
        }
    }

    @Test("--watch: a file written meanwhile is indexed, and the status reports the pass")
    func watch() async throws {
        let rig = try await WebRig()
        let (process, port, token) = try Self.start(rig, ["--watch"])
        defer { process.interrupt(); process.waitUntilExit() }
        func status() throws -> JSON {
            let connection = try RawConnection(port: port)
            try connection.write(
                "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
                    + "Connection: close\r\n\r\n")
            return JSON.parse(Data(RawResponse(try connection.readAll()).body.utf8)) ?? .null
        }
        // Until the watch runs (after its catch-up pass), then a new note, until a pass has taken it in.
        let deadline = ContinuousClock.now + .seconds(60)
        while try status()["watch"]?["last_pass"] == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try status()["watch"]?["last_pass"]?["new"] == 0, "the catch-up pass found nothing new")
        try rig.folder.write("notes/kettle.md", "# Kettle\n\nDescale the kettle with vinegar.\n")
        while try status()["watch"]?["last_pass"]?["new"] != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let watch = try status()["watch"]
        #expect(watch?["last_pass"]?["new"] == 1, "\(String(describing: watch))")
        #expect(watch?["indexing"] == false)
        #expect(try status()["documents"] == 4)
    }
}
