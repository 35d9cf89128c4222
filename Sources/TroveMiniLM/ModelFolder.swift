@preconcurrency import Glibc

/// Where the built-in model's files live.
package enum ModelFolder {
    /// The folder name under the models root.
    package static let name = "all-minilm-l6-v2"

    /// `$TROVE_MODELS/all-minilm-l6-v2`, else `$XDG_DATA_HOME/trove/models/…`, else `~/.local/share/trove/models/…`.
    package static func resolve(environment: [String: String]) -> String {
        if let root = environment["TROVE_MODELS"], !root.isEmpty { return trimmed(root) + "/" + name }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return trimmed(data) + "/trove/models/" + name }
        return trimmed(environment["HOME"] ?? "~") + "/.local/share/trove/models/" + name
    }

    /// The model files absent from `folder`, in `MiniLM.files` order.
    package static func missingFiles(in folder: String) -> [String] {
        MiniLM.files.filter { access(folder + "/" + $0, R_OK) != 0 }
    }

    private static func trimmed(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
