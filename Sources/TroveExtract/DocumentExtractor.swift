import TroveIngest

/// Reads one format's bytes into an `ExtractedDocument`. Runs inside the extraction worker, never in the indexer's
/// process: a trap or a runaway parse ends only the worker.
package protocol DocumentExtractor {
    /// The document in `bytes`, or the named reason it cannot be read. Honours every cap in `limits`.
    static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure) -> ExtractedDocument
}
