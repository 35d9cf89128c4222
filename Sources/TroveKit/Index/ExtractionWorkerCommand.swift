import Foundation

/// How the extraction worker is started when the front end named none (`TroveConfiguration.extractionWorker`): trove
/// re-executes itself with the hidden `extract-worker` subcommand.
package enum ExtractionWorkerCommand {
    /// `[trove, "extract-worker"]`: this process's own executable when it is `trove`, else the `trove` beside it (a
    /// test bundle or `trove-bench` in the build folder).
    package static var standard: [String] {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let url = URL(fileURLWithPath: own)
        if url.lastPathComponent == "trove" { return [own, "extract-worker"] }
        var folder = url.deletingLastPathComponent()
        // A test bundle runs from inside `TrovePackageTests.xctest/…` on some toolchains: look above it too.
        for _ in 0..<3 {
            let beside = folder.appendingPathComponent("trove").path
            if FileManager.default.isExecutableFile(atPath: beside) { return [beside, "extract-worker"] }
            folder.deleteLastPathComponent()
        }
        return ["trove", "extract-worker"]
    }
}
