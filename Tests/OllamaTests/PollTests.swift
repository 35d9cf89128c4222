import Foundation
import Synchronization
import Testing
import TroveTestSupport

/// `poll` and `eventually` (TroveTestSupport), which every wait on a server or a child process goes through.
@Suite("Waiting for something to happen")
struct PollTests {
    @Test("what happened while the waiting task was kept from running past its deadline is still seen")
    func looksOnceMoreAfterTheDeadline() async {
        // The first look takes longer than the whole wait, as a task the busy cooperative pool held back would: a
        // loop that only looks before the deadline gives up without seeing what happened meanwhile.
        let looks = Atomic(0)
        let seen = await poll(within: 0.5) { () -> Int? in
            let look = looks.wrappingAdd(1, ordering: .relaxed).newValue
            if look == 1 { usleep(1_000_000) }
            return look > 1 ? look : nil
        }
        #expect(seen == 2)
    }

    @Test("a condition that never holds is false after its time; one that throws has not held yet")
    func falseAfterItsTime() async {
        let start = ContinuousClock.now
        #expect(await eventually(within: 0.1) { false } == false)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        struct NotYet: Error {}
        let looks = Atomic(0)
        #expect(
            await eventually(within: 5) {
                if looks.wrappingAdd(1, ordering: .relaxed).newValue == 1 { throw NotYet() }
                return true
            })
    }

    @Test("an error that ends the wait reaches the caller")
    func errorsEndThePoll() async {
        struct Ended: Error {}
        await #expect(throws: Ended.self) { _ = try await poll(within: 5) { () throws -> Int? in throw Ended() } }
    }
}
