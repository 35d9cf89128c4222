import Testing
import TroveIngest

@testable import TroveKit

/// The one line `trove index` prints for a mailbox that passed a cap: the counts, the cap, and what to do.
@Suite struct TruncationWarningTests {
    @Test func theWarningCountsWhatWasKeptAndWhatWasLeft() {
        let truncation = ExtractedDocument.Truncation(
            kind: .message, kept: 9_412, total: 30_180, limit: "the 16.0 MB text limit")
        #expect(
            truncation.warning(path: "lists/2019.mbox")
                == "lists/2019.mbox: indexed the first 9412 of 30180 messages; the other 20768 pass the 16.0 MB text"
                + " limit (split the file to index them)")
    }
}
