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

