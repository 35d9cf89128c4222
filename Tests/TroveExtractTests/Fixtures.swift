import Foundation
import TroveIngest
import Testing

/// A committed fixture's bytes (`Fixtures/FORMAT/NAME`; their origins are in `Fixtures/SOURCES.md`).
func fixture(_ path: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/" + path, withExtension: nil))
    return try [UInt8](Data(contentsOf: url))
}

/// The `damaged` outcome with this detail (shorter expectations).
func damaged(_ detail: String) -> ExtractionFailure { ExtractionFailure(.damaged, detail) }
