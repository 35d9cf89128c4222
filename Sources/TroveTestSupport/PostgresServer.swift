import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A throwaway PostgreSQL 16 with pgvector 0.6.2 (`../shared/tools/postgres`, the pgserver wheel's binaries), one
/// per test process: started on first use on a free loopback port with a temporary data folder, stopped (and the
/// folder removed) when the process exits. Each test takes a schema of its own (`freshURL()`), so tests share the
/// server without seeing each other's indexes. A real server, not a fake of ours.
public enum PostgresServer {
    /// The tool's folder: `TROVE_POSTGRES_TOOL`, else ../shared/tools/postgres beside the repository.
    public static let folder: String = {
        if let folder = ProcessInfo.processInfo.environment["TROVE_POSTGRES_TOOL"], !folder.isEmpty { return folder }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent("../shared/tools/postgres").standardizedFileURL.path
    }()

    /// Why no server can start here, or nil when its binaries are in place (the start itself may still fail,
    /// which the first test that needs it reports as its error).
    public static let unavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: folder + "/.pginstall/bin/postgres") else {
            return "needs PostgreSQL + pgvector: bash \(folder)/setup.sh (Scripts/test.sh does it)"
        }
        return nil
    }()

    /// The server's URL (`postgresql://postgres@127.0.0.1:PORT/postgres`), starting it on first call.
    public static func url() async throws -> String {
        try await Self.started.value.get()
    }

    /// A URL selecting a new, empty schema (a new index) on the shared server.
    public static func freshURL(_ options: String = "") async throws -> String {
        let base = try await url()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        return base + "?schema=" + schema + options
    }

    /// One start per process, shared by every test; the blocking wait for start.sh runs on a thread of its own.
    private static let started = Task<Result<String, any Error>, Never> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { try start() }) }
        }
    }

    /// The data folder of the running server (read at exit).
    nonisolated(unsafe) private static var dataFolder: String?

    private static func start() throws -> String {
        if let unavailable { throw ServerError(unavailable) }
        let port = try ClosedPort().port  // a port nobody listens on now
        // Under /tmp: as root the server runs as `trovepg`, which needs to reach the folder.
        let data = "/tmp/trove-pg-\(getpid())-\(port)"
        let (status, output) = run([folder + "/start.sh", String(port), data])
        guard status == 0, let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgresql://")
        else {
            throw ServerError("PostgreSQL did not start (start.sh exit \(status)): \(output.suffix(400))")
        }
        dataFolder = data
        atexit {
            guard let data = PostgresServer.dataFolder else { return }
            _ = PostgresServer.run([PostgresServer.folder + "/stop.sh", data])
        }
        return url
    }

    /// Runs a script with bash, waiting for it; its exit status and stdout (stderr goes to /dev/null). Through
    /// `system` into a file rather than `Process` and a pipe: the server start.sh leaves running inherits what
    /// the script had open, so a pipe would never reach its end. The arguments are our own paths and numbers.
    @discardableResult
    static func run(_ arguments: [String]) -> (Int32, String) {
        let output = NSTemporaryDirectory() + "trove-pg-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        // Every descriptor past stderr is closed first: the server would otherwise keep, for its whole life, the
        // sockets other tests had open at that moment (`system` does not close them), and a client's closed
        // connection would never reach the fake server at its other end.
        let closing = "import os, sys; os.closerange(3, os.sysconf('SC_OPEN_MAX')); os.execv('/bin/bash', ['bash'] + sys.argv[1:])"
        let command = (["python3", "-c", closing] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        let status = system(command + " >'\(output)' 2>/dev/null </dev/null")
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status == -1 ? -1 : (status >> 8) & 0xff, text)
    }

    /// A server that could not start.
    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}

/// The stores a parameterised test runs against: SQLite always, PostgreSQL when its server can start here (when
/// it cannot, `PostgresServer.unavailable` says why, and the suites' "PostgreSQL server" test is skipped with it).
public enum StoreKind: String, Sendable, CaseIterable {
    case sqlite, postgres

    /// The kinds to test here.
    public static var available: [StoreKind] { PostgresServer.unavailable == nil ? [.sqlite, .postgres] : [.sqlite] }

    /// A new, empty index location of this kind: a path inside `folder`, or a fresh schema's URL.
    public func freshLocation(in folder: String, options: String = "") async throws -> String {
        switch self {
        case .sqlite: folder + "/index-\(UUID().uuidString.prefix(8)).sqlite"
        case .postgres: try await PostgresServer.freshURL(options)
        }
    }
}
