import Foundation

/// A fresh folder under the system temp dir, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {  // immutable after init
    public let path: String

    public init() throws {
        let template = NSTemporaryDirectory() + "trove-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to `relativePath`, creating folders on the way; returns the absolute path.
    @discardableResult
    public func write(_ relativePath: String, _ contents: String) throws -> String {
        try write(relativePath, data: Data(contents.utf8))
    }

    @discardableResult
    public func write(_ relativePath: String, data: Data) throws -> String {
        let full = path + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
        return full
    }
}
