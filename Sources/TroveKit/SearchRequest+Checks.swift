/// The ranges a `SearchRequest` must keep: a request may come from a socket or a pipe (`trove serve`,
/// `trove mcp`), so every number is checked where it arrives and never reaches a precondition below.
extension SearchRequest {
    /// The most results one request may ask for.
    public static let maximumLimit = 10_000
    /// The most candidates one ranking may be asked for.
    public static let maximumCandidateDepth = 100_000
    /// The longest query, in bytes of UTF-8.
    public static let maximumQueryBytes = 16_384
    /// The most values in one filter list (globs, extensions, roots) and the longest value, in bytes.
    public static let maximumFilterValues = 256
    public static let maximumFilterValueBytes = 4_096

    /// Throws `SearchRequestError` naming the first field out of range.
    public func validate() throws(SearchRequestError) {
        func fail(_ message: String) -> SearchRequestError { SearchRequestError(message) }
        guard query.utf8.count <= Self.maximumQueryBytes else {
            throw fail("the query is \(query.utf8.count) bytes long, at most \(Self.maximumQueryBytes) are searched")
        }
        guard (0...Self.maximumLimit).contains(limit) else {
            throw fail("limit must be from 0 to \(Self.maximumLimit), got \(limit)")
        }
        if let minScore {
            guard minScore.isFinite, (-1...1).contains(minScore) else {
                throw fail("min_score must be a number from -1 to 1, got \(minScore)")
            }
        }
        guard (1...Self.maximumCandidateDepth).contains(candidateDepth) else {
            throw fail("candidate depth must be from 1 to \(Self.maximumCandidateDepth), got \(candidateDepth)")
        }
        guard fusionConstant.isFinite, (0...1_000_000).contains(fusionConstant) else {
            throw fail("the fusion constant must be a number from 0 to 1000000, got \(fusionConstant)")
        }
        guard keywordWeight.isFinite, (0...1_000_000).contains(keywordWeight) else {
            throw fail("the keyword weight must be a number from 0 to 1000000, got \(keywordWeight)")
        }
        for (name, values) in [("path", filter.pathGlobs), ("ext", filter.extensions), ("root", filter.roots)] {
            guard values.count <= Self.maximumFilterValues else {
                throw fail("at most \(Self.maximumFilterValues) --\(name) filters, got \(values.count)")
            }
            if let long = values.first(where: { $0.utf8.count > Self.maximumFilterValueBytes }) {
                throw fail("a --\(name) filter of \(long.utf8.count) bytes is too long")
            }
        }
    }
}

/// A search request with a field out of range; the message names it, its range and the value.
public struct SearchRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A lowercase sentence.
    public var message: String
    /// An error with its message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
