import TroveIngest

/// The text sent to the embedder for a chunk (after the model's document prefix): its heading path gives the
/// passage its context. Its SHA-256 is the chunk's `content_hash`, the key under which vectors are reused.
enum EmbeddingText {
    /// The text for a chunk the chunker just made.
    static func forChunk(_ chunk: Chunk) -> String {
        forStored(heading: chunk.headingPath.joined(separator: " › "), text: chunk.text)
    }

    /// The text for a chunk as the index keeps it (re-embedding): its heading path already joined by ` › `. The
    /// chunker never puts an empty title in a path, so an empty heading and an empty path are the same chunk.
    static func forStored(heading: String, text: String) -> String {
        heading.isEmpty ? text : heading + "\n\n" + text
    }
}
