import Foundation
import Synchronization
import Testing

@testable import TroveMiniLM
import TroveTestTraits

@Suite("Partner threads of a forward pass", .offCooperativePool)
struct LanesTests {
    @Test("every lane of every run runs once, and a run returns only after all of them", arguments: [2, 3])
    func everyLaneOnce(count: Int) {
        let lanes = Lanes(count: count)
        let runs = count == 2 ? 20_000 : 3_000
        let tally = Tally(count * runs)
        for run in 0..<runs {
            // Every few hundred runs the partners have time to park, so both the spinning and the woken path run.
            if run % 500 == 0 { usleep(1_000) }
            #expect(lanes.run(count) { lane in tally.add(run * count + lane) })
            // Written by a partner before `run` returned: visible here, or the run returned early.
            for lane in 0..<count where tally.value(run * count + lane) != 1 {
                Issue.record("run \(run), lane \(lane) ran \(tally.value(run * count + lane)) times")
                return
            }
        }
    }

    @Test("a run while another holds the partners is refused, not queued; other lane counts are refused")
    func busyAndOtherCounts() {
        let lanes = Lanes(count: 2)
        var nested: Bool?
        #expect(lanes.run(2) { lane in if lane == 0 { nested = lanes.run(2) { _ in } } })
        #expect(nested == false)
        #expect(!lanes.run(3) { _ in })
        var ran = 0
        #expect(lanes.run(1) { _ in ran += 1 })
        #expect(ran == 1)
    }

    @Test("dropping the lanes stops their threads")
    func threadsStop() {
        let state: Lanes.State
        do {
            let lanes = Lanes(count: 4)
            state = lanes.state
            #expect(lanes.run(4) { _ in })
            #expect(state.runningPartners == 3)
        }
        for _ in 0..<400 where state.runningPartners > 0 { usleep(5_000) }
        #expect(state.runningPartners == 0)
    }
}

/// Counters that lanes bump from several threads at once.
private final class Tally: Sendable {
    private let counts: Mutex<[Int]>
    init(_ count: Int) { counts = Mutex([Int](repeating: 0, count: count)) }
    func add(_ index: Int) { counts.withLock { $0[index] += 1 } }
    func value(_ index: Int) -> Int { counts.withLock { $0[index] } }
}
