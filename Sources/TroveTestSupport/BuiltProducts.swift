import Foundation

/// The path of an executable product of this package (`trove`), beside the running test bundle in the build folder,
/// for tests that start it as a child process (`trove extract-worker` among them).
public func builtProduct(_ name: String) -> String {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.path + "/.build/debug/" + name
}
