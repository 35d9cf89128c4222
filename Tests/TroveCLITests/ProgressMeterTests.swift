import Ollama
import Testing

@testable import TroveCLI

@Suite("pull progress line")
struct ProgressMeterTests {
    @Test("the bar shows percent, bytes, rate and time left once a rate is known")
    func meter() {
        var meter = ProgressMeter()
        let start = ContinuousClock.now
        let update = { (completed: Int64) in
            OllamaClient.ProgressUpdate(
                status: "pulling abc", digest: "sha256:abc", total: 4 << 20, completed: completed)
        }
        #expect(meter.render(update(0), now: start) == "pulling abc  0% [                    ] 0 bytes/4.0 MB")
        #expect(
            meter.render(update(1 << 20), now: start + .seconds(1))
                == "pulling abc  25% [#####               ] 1.0 MB/4.0 MB  1.0 MB/s  0:03 left")
        #expect(meter.render(.init(status: "verifying sha256 digest"), now: start) == "verifying sha256 digest")
    }
}
