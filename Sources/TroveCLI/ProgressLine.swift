import Foundation
import Synchronization

/// A single status line on a terminal's stderr, redrawn at most ten times a second; silent when not a terminal.
final class ProgressLine: Sendable {
    private let stream: any TextStream
    private let enabled: Bool
    private let state = Mutex(State())

    private struct State {
        var lastDraw = ContinuousClock.now - .seconds(1)
        var visible = false
    }

    init(stream: any TextStream, enabled: Bool) {
        self.stream = stream
        self.enabled = enabled
    }

    func update(_ text: String) {
        guard enabled else { return }
        state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.lastDraw >= .milliseconds(100) else { return }
            state.lastDraw = now
            state.visible = true
            stream.write("\r\u{1B}[K" + text)
        }
    }

    /// Erases the line so that a log line or the result starts clean.
    func clear() {
        guard enabled else { return }
        state.withLock { state in
            guard state.visible else { return }
            state.visible = false
            stream.write("\r\u{1B}[K")
        }
    }
}
