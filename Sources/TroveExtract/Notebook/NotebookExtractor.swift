import Foundation
import TroveIngest
import TroveSystem

/// Reads a Jupyter notebook (`.ipynb`, nbformat 4, and 3's worksheets) cell by cell: each cell a hard boundary with
/// its locator (`cell N`, counting every cell from 1); Markdown cells as written, their `#` headings as the heading
/// path; code cells fenced in the kernel's language, followed by their text outputs, capped per cell; images and other
/// rich outputs dropped.
package enum NotebookExtractor: DocumentExtractor {
    /// Most bytes of output text kept per code cell: a log or a dataframe is worth a glance, not megabytes.
    package static let outputCap = 2048

    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        guard bytes.count <= limits.maxInputBytes else {
            throw ExtractionFailure(.damaged, "larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
        }
        guard let notebook = JSON.parse(Data(bytes))?.objectValue else {
            throw ExtractionFailure(.damaged, "not a jupyter notebook (not a json object)")
        }
        let worksheets = notebook["worksheets"]?.arrayValue?.compactMap { $0["cells"]?.arrayValue }
        guard let cells = notebook["cells"]?.arrayValue ?? worksheets?.flatMap({ $0 }) else {
            throw ExtractionFailure(.damaged, "not a jupyter notebook (no cells)")
        }
        let metadata = notebook["metadata"]
        let language =
            metadata?["kernelspec"]?["language"]?.stringValue ?? metadata?["language_info"]?["name"]?.stringValue
            ?? metadata?["language"]?.stringValue ?? ""
        var writer = NotebookWriter(builder: DocumentBuilder(extractor: "ipynb", limits: limits), language: language)
        for (index, cell) in cells.enumerated() {
            try writer.builder.boundary(.cell, number: index + 1)
            try writer.write(cell)
        }
        return writer.builder.finish()
    }
}
