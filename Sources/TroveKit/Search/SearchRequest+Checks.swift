/// The sizes a `SearchRequest` may ask for: a request may come from a socket or a pipe (`trove serve`, `trove mcp`),
/// so an absurd limit, depth, query or filter is refused where it arrives, as `validate()` refuses a bad number.
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

    /// The size limits `validate()` adds to the ranges of each parameter: how much one request may ask for.
    func checkSizes() throws(SearchRequestError) {
        func fail(_ message: String) -> SearchRequestError { SearchRequestError(message) }
        guard query.utf8.count <= Self.maximumQueryBytes else {
            throw fail("the query is \(query.utf8.count) bytes long, at most \(Self.maximumQueryBytes) are searched")
        }
        guard limit <= Self.maximumLimit else {
            throw fail("limit must be from 0 to \(Self.maximumLimit), got \(limit)")
        }
        guard candidateDepth <= Self.maximumCandidateDepth else {
            throw fail("candidate depth must be from 1 to \(Self.maximumCandidateDepth), got \(candidateDepth)")
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
