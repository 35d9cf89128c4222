import Foundation
import TroveKit
import Synchronization

/// A single status line on a terminal's stderr, redrawn at most ten times a second; silent when not a terminal.
final class ProgressLine: Sendable {
    private let stream: any TextStream
    private let enabled: Bool
    private let state = Mutex(State())

    private struct State {
        var started = ContinuousClock.now
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

    /// Files done of the total, chunks embedded, with the rate and the time left, measured from this line's start.
    func update(filesDone: Int, filesTotal: Int, chunksEmbedded: Int) {
        guard enabled else { return }
        let elapsed = state.withLock { ContinuousClock.now - $0.started }
        update(
            Self.render(
                filesDone: filesDone, filesTotal: filesTotal, chunksEmbedded: chunksEmbedded,
                seconds: elapsed.seconds))
    }

    /// E.g. `412/1000 files · 2310 chunks embedded · 85 chunks/s · 0:42 left`; rate and time left appear once
    /// there is a second of history to estimate them from.
    static func render(filesDone: Int, filesTotal: Int, chunksEmbedded: Int, seconds: Double) -> String {
        var text = "\(filesDone)/\(filesTotal) files · \(chunksEmbedded) chunks embedded"
        guard seconds >= 1 else { return text }
        text += " · \(Int((Double(chunksEmbedded) / seconds).rounded())) chunks/s"
        if filesDone > 0, filesTotal > filesDone {
            let left = Int((seconds / Double(filesDone) * Double(filesTotal - filesDone)).rounded())
            text += " · " + (left >= 3600 ? "\(left / 3600):" + twoDigits(left / 60 % 60) : "\(left / 60)")
                + ":" + twoDigits(left % 60) + " left"
        }
        return text
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

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
