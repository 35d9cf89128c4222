import Foundation
import TroveIngest
import TroveTestSupport

/// What one crawl reported, in callback order.
struct CrawlResult {
    var files: [String] = []
    var skipped: [String] = []
    var crawled: [CrawledFile] = []
}

/// Crawls `root` and collects relative paths of files and descriptions of skips.
func crawl(_ root: String, _ options: CrawlOptions = CrawlOptions()) throws -> CrawlResult {
    var result = CrawlResult()
    try Crawler(options: options).crawl(
        root: root,
        onFile: {
            result.files.append($0.relativePath)
            result.crawled.append($0)
        },
        onSkip: { result.skipped.append($0.description) })
    return result
}

extension TemporaryDirectory {
    /// Writes each path with a short body.
    func touch(_ paths: [String]) throws {
        for path in paths { try write(path, "# \(path)\n") }
    }
}

/// A seeded generator so failing property checks can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
