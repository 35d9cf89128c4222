import Foundation
import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct NotebookExtractorTests {
    static func read(_ name: String) throws -> ExtractedDocument {
        try NotebookExtractor.extract(try HTMLExtractorTests.fixture("notebook", name), limits: ExtractionLimits())
    }

    @Test func nbformat4CellsAreBoundariesWithHeadingsAndFencedCode() throws {
        let document = try Self.read("test4.ipynb")
        #expect(document.locators.map(\.number) == Array(1...9))
        #expect(document.locators.allSatisfy { $0.kind == .cell && !$0.approximate })
        #expect(document.boundaries == document.locators.map(\.line))
        #expect(
            document.headings.map(\.path) == [
                ["nbconvert latex test"], ["nbconvert latex test", "Printed Using Python"],
                ["nbconvert latex test", "Pyout"], ["nbconvert latex test", "Pyout", "Image"],
            ])
        #expect(document.lines[document.headings[0].line] == "# nbconvert latex test")
        // Cell 4: code fenced (the notebook names no language), then its printed output.
        let code = document.locators[3].line
        #expect(Array(document.lines[code..<code + 6]) == [
            "```", "from __future__ import annotations", "", "print(\"hello\")", "```", "hello",
        ])
        // The image's base64 never reaches the text.
        #expect(!document.lines.contains { $0.contains("iVBORw0KGgo") })
        #expect(document.extractor == "ipynb")
    }

    @Test func nbformat3WorksheetsAndHeadingCellsRead() throws {
        let document = try Self.read("test3.ipynb")
        #expect(document.locators.count == 9)
        #expect(document.headings.map(\.path).first == ["nbconvert latex test"])
        #expect(document.headings.map(\.path).last == ["nbconvert latex test", "Pyout", "Image"])
        #expect(document.lines.contains("print(\"hello\")"))
    }

    @Test func aCommentInCodeIsNoHeadingAndTracebacksLoseTheirColours() throws {
        let document = try Self.read("many_tracebacks.ipynb")
        #expect(document.headings.isEmpty)
        #expect(document.lines.first == "```python")
        #expect(document.lines.contains("NameError: name 'iAmNotDefined' is not defined"))
        #expect(!document.lines.contains { $0.contains("\u{1B}") })
    }

    @Test func aSchemaInvalidNotebookIsReadAsFarAsItIsOne() throws {
        #expect(try Self.read("invalid.ipynb").locators.count > 0)
    }

    @Test func hugeOutputsAreCutAndTooManyCellsOrNoNotebookAreDamaged() throws {
        // A 5 MB stream output (the worker test below takes the 50 MB): cut at the cap, marked.
        let big = String(repeating: "0123456789abcdef\n", count: 300_000)
        let notebook: [String: Any] = [
            "nbformat": 4, "metadata": ["kernelspec": ["language": "python"]],
            "cells": [
                ["cell_type": "code", "source": "run()", "outputs": [["output_type": "stream", "text": big]]],
                ["cell_type": "markdown", "source": ["after"]],
            ],
        ]
        let bytes = [UInt8](try JSONSerialization.data(withJSONObject: notebook))
        let document = try NotebookExtractor.extract(bytes, limits: ExtractionLimits())
        #expect(document.lines.joined(separator: "\n").utf8.count < 4 * NotebookExtractor.outputCap)
        #expect(document.lines.contains("[output cut at 2.0 KB]"))
        #expect(document.lines.last == "after")
        var few = ExtractionLimits()
        few.maxParts = 1
        #expect(throws: ExtractionFailure(.damaged, "more than 1 cells")) {
            try NotebookExtractor.extract(bytes, limits: few)
        }
        #expect(throws: ExtractionFailure(.damaged, "not a jupyter notebook (not a json object)")) {
            try NotebookExtractor.extract(Array("{\"cells\": [".utf8), limits: ExtractionLimits())
        }
        #expect(throws: ExtractionFailure(.damaged, "not a jupyter notebook (no cells)")) {
            try NotebookExtractor.extract(Array("{\"a\": 1}".utf8), limits: ExtractionLimits())
        }
    }

    /// A notebook whose one plot output is `megabytes` MB of base64.
    static func plotted(megabytes: Int) throws -> [UInt8] {
        let payload = String(repeating: "iVBORw0KGgoAAAANSUhEUgAA", count: megabytes << 20 / 24)
        let notebook: [String: Any] = [
            "nbformat": 4, "metadata": [:],
            "cells": [
                ["cell_type": "markdown", "source": "# Plot"],
                [
                    "cell_type": "code", "source": "plot()",
                    "outputs": [["output_type": "display_data", "data": ["image/png": payload, "text/plain": "<Figure>"]]],
                ],
            ],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: notebook))
    }

    @Test func aNotebookWithA50MBOutputIsReadWithoutIt() throws {
        let document = try NotebookExtractor.extract(try Self.plotted(megabytes: 50), limits: ExtractionLimits())
        #expect(document.lines == ["# Plot", "", "```", "plot()", "```", "<Figure>"])
    }

    @Test func aNotebookWithABigOutputIsReadInTheWorkerBesideAGoodOne() async throws {
        // 5 MB through the worker (the 50 MB case is the test above, in process): the same handling, less load on a
        // test run where every worker test runs in parallel.
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let document = try await WorkerTests.extract(try Self.plotted(megabytes: 5), as: .notebook, with: service).get()
        #expect(document.lines.contains("<Figure>"))
        let good = try await WorkerTests.extract(
            try HTMLExtractorTests.fixture("notebook", "test4.ipynb"), as: .notebook, with: service
        ).get()
        #expect(good.locators.count == 9)
    }
}
