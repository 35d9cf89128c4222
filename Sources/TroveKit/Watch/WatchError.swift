import TroveSystem

/// Failures of watching folders (inotify could not start); what goes wrong in a pass is the indexer's error.
public struct WatchError: TroveError, Equatable {
    public enum Code: Sendable, Equatable {
        case inotify, noFolders
    }

    public var code: Code
    /// A lowercase sentence saying what to do.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
