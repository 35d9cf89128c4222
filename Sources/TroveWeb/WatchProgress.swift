import Foundation
import Synchronization
import TroveKit
import TroveSystem

/// What a `--watch` beside `trove web` is doing, for the status: idle or indexing (files done of the total), and the
/// last pass.
package final class WatchProgress: Sendable {
    private struct State {
        var watching = false
        var indexing = false
        var filesDone = 0
        var filesTotal = 0
        var lastPass: JSON?
    }
    private let state = Mutex(State())

    /// A tracker that has seen nothing (no watch).
    package init() {}

    /// Takes in one event of the watch.
    package func record(_ event: WatchEvent) {
        state.withLock { state in
            switch event {
            case .watching:
                state.watching = true
            case .indexing(.progress(let done, let total, _)):
                (state.indexing, state.filesDone, state.filesTotal) = (true, done, total)
            case .indexing:
                state.indexing = true
            case .pass(let pass):
                state.indexing = false
                let summary = pass.summary
                state.lastPass = [
                    "finished": .string(ISO8601DateFormatter().string(from: Date())),
                    "new": .integer(Int64(summary.newDocuments)), "changed": .integer(Int64(summary.changedDocuments)),
                    "removed": .integer(Int64(summary.removedDocuments)),
                ]
            case .notice:
                break
            }
        }
    }

    /// The status's `watch` member; nil without a watch.
    var json: JSON? {
        state.withLock { state in
            guard state.watching else { return nil }
            var object: [String: JSON] = ["indexing": .bool(state.indexing)]
            if state.indexing {
                object["files_done"] = .integer(Int64(state.filesDone))
                object["files_total"] = .integer(Int64(state.filesTotal))
            }
            if let last = state.lastPass { object["last_pass"] = last }
            return .object(object)
        }
    }
}
