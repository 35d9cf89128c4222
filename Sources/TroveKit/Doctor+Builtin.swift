import TroveMiniLM

extension Doctor {
    /// Whether the built-in model's files are installed; a problem only when the builtin embedder is in use.
    func builtinModelCheck(folder: String, required: Bool) -> DoctorCheck {
        let missing = ModelFolder.missingFiles(in: folder)
        guard missing.isEmpty else {
            return DoctorCheck(
                name: "builtin model", passed: !required,
                detail: "all-minilm-l6-v2 is not installed in \(folder) (missing \(missing.joined(separator: ", ")))"
                    + (required ? "" : "; needed only for --embedder builtin"),
                fix: "install it: \(ModelFolder.installCommand)")
        }
        do {
            // Through the embedder: the same loading and SHA-256 check a search gets.
            let model = try BuiltinEmbedder(folder: folder).encoder()
            let weights =
                switch model.weightsLoad {
                case .mapped, .rebuilt: "weights mapped from the cache beside it"
                case .inMemory: "weights re-laid out in memory: the folder cannot hold the cache, so every process pays ~70 ms"
                }
            return DoctorCheck(
                name: "builtin model", passed: true,
                detail: "all-minilm-l6-v2 in \(folder) (\(weights)); \(precisionNote)")
        } catch {
            return DoctorCheck(
                name: "builtin model", passed: false, detail: String(describing: error),
                fix: "reinstall it: \(ModelFolder.installCommand)")
        }
    }

    /// Which arithmetic indexing batches use here, and why: a user who asks why indexing is fast or slow sees it.
    var precisionNote: String {
        guard let embedPrecision else {
            let automatic = Precision.automatic
            let instructions = automatic == .fp32 ? "" : ": " + automatic.instructions
            return "indexes in \(automatic.rawValue), auto for this CPU\(instructions)"
        }
        return "indexes in \(embedPrecision.rawValue), as chosen (TROVE_EMBED_PRECISION, trove index --precision)"
    }
}
