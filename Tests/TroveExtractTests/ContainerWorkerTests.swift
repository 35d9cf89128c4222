import Testing
import TroveExtract
import TroveIngest

/// The zip containers read in the extraction worker, as the indexer reads them: a real file of each format, and a
/// hostile one beside a good one in the same worker.
@Suite struct ContainerWorkerTests {
    @Test func realFilesOfEachFormatAreReadInTheWorker() async throws {
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let docx = try await WorkerTests.extract(try fixture("docx/par-known-styles.docx"), as: .docx, with: service)
        #expect(try docx.get().headings.map(\.path) == [["Heading 1"]])
        let pptx = try await WorkerTests.extract(try fixture("pptx/test.pptx"), as: .pptx, with: service)
        #expect(try pptx.get().locators.map(\.kind) == [.slide])
        let odt = try await WorkerTests.extract(try fixture("odt/simpletable.odt"), as: .odt, with: service)
        #expect(try odt.get().lines.first == "Cell 1 | Cell 2")
    }

    @Test func aBombIsNamedAndTheNextFileIsRead() async throws {
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let (compressed, crc) = ZipWriter.deflatedZeros(100 << 20)
        var bomb = ZipWriter.Entry("content.xml", bytes: [])
        bomb.declaredSize = 1 << 20
        let archive = ZipWriter.archive([(bomb, compressed, crc)])
        let bombed = try await WorkerTests.extract(archive, as: .odt, with: service)
        let lying = damaged("zip entry content.xml inflates past its declared size (lying sizes)")
        #expect(WorkerTests.failure(bombed) == lying)
        let good = try await WorkerTests.extract(try fixture("odt/headerfooter.odt"), as: .odt, with: service)
        #expect(try good.get().lines == ["Lorem ipsum"])
    }
}
