/// Parameters of the chunker; part of the index fingerprint.
package struct ChunkerConfiguration: Sendable, Equatable {
    /// Bumped whenever chunk boundaries for the same input change (2: lines over the model's context are cut).
    package static let version = 2
    /// Estimated tokens a chunk may hold.
    package var maxTokens: Int
    /// Fraction of `maxTokens` repeated from the end of one chunk at the start of the next when a section is split.
    package var overlap: Double

    package init(maxTokens: Int = 400, overlap: Double = 0.12) {
        self.maxTokens = maxTokens
        self.overlap = overlap
    }

    /// The parameters as a stable string for the index manifest, e.g. `maxTokens=400,overlap=0.12` (the chunker
    /// `version` is recorded separately).
    package var fingerprint: String { "maxTokens=\(maxTokens),overlap=\(overlap)" }
}
