/// Parameters of the chunker; part of the index fingerprint.
public struct ChunkerConfiguration: Sendable, Equatable {
    /// Bumped whenever chunk boundaries for the same input change.
    public static let version = 1
    /// Estimated tokens a chunk may hold.
    public var maxTokens: Int
    /// Fraction of `maxTokens` repeated from the end of one chunk at the start of the next when a section is split.
    public var overlap: Double

    public init(maxTokens: Int = 400, overlap: Double = 0.12) {
        self.maxTokens = maxTokens
        self.overlap = overlap
    }

    /// The parameters as a stable string for the index manifest, e.g. `maxTokens=400,overlap=0.12` (the chunker
    /// `version` is recorded separately).
    public var fingerprint: String { "maxTokens=\(maxTokens),overlap=\(overlap)" }
}
