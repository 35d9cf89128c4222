@preconcurrency import Glibc

/// Where the built-in model's files live: the user's folder, else the system's beside the installed binary.
package enum ModelFolder {
    /// The folder name under the models root.
    package static let name = "all-minilm-l6-v2"
    /// The command that installs the model, as every message about a missing or damaged model names it.
    package static let installCommand = "trove models install builtin"
    /// The files a model folder holds.
    package static let files = ["model.safetensors", "vocab.txt", "tokenizer.json"]

    /// `$TROVE_MODELS/all-minilm-l6-v2` when set; else the user's folder (`userFolder`) when it holds the model, else
    /// the system's (`systemFolder`, a package's or `Scripts/install.sh`'s) when that one does, else the user's.
    package static func resolve(environment: [String: String]) -> String {
        if let root = environment["TROVE_MODELS"], !root.isEmpty { return trimmed(root) + "/" + name }
        let user = userFolder(environment: environment)
        if missingFiles(in: user).isEmpty { return user }
        if let system = systemFolder(), missingFiles(in: system).isEmpty { return system }
        return user
    }

    /// `$XDG_DATA_HOME/trove/models/all-minilm-l6-v2`, else `~/.local/share/trove/models/…`.
    package static func userFolder(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return trimmed(data) + "/trove/models/" + name }
        return trimmed(environment["HOME"] ?? "~") + "/.local/share/trove/models/" + name
    }

    /// `PREFIX/share/trove/models/all-minilm-l6-v2` for the running binary at `PREFIX/bin/trove` (`/usr` for the
    /// Debian package), so one install serves every user; nil when the binary's path is unknown.
    package static func systemFolder(executable: String? = runningExecutable()) -> String? {
        guard let executable, let bin = executable.lastIndex(of: "/") else { return nil }
        let folder = executable[..<bin]
        guard let prefixEnd = folder.lastIndex(of: "/") else { return nil }
        return String(folder[..<prefixEnd]) + "/share/trove/models/" + name
    }

    /// The model files absent from `folder`, in `files` order.
    package static func missingFiles(in folder: String) -> [String] {
        files.filter { access(folder + "/" + $0, R_OK) != 0 }
    }

    /// The path of this process's executable (`/proc/self/exe`), links resolved.
    private static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func trimmed(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
