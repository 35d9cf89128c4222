import Foundation
import TroveExtract
import TroveIngest

extension Doctor {
    /// The extraction lines: which formats this build reads, the PDF tools and their versions (what is missing, with
    /// the `apt-get install` line), and whether the extraction worker runs confined by bubblewrap here.
    func extractionChecks() -> [DoctorCheck] {
        let environment = ProcessInfo.processInfo.environment
        var checks = [formatsCheck(), pdfCheck(environment)]
        if let extractionWorker { checks.append(confinementCheck(extractionWorker, environment)) }
        return checks
    }

    func formatsCheck() -> DoctorCheck {
        let (read, unread) = DocumentFormat.allCases.reduce(into: ([String](), [String]())) { lists, format in
            if ExtractorRegistry.reader(for: format) != nil {
                lists.0.append(format.rawValue)
            } else {
                lists.1.append(format.rawValue)
            }
        }
        let missing = unread.isEmpty ? "" : "; not in this build: \(unread.joined(separator: ", "))"
        return DoctorCheck(
            name: "extractors", passed: true,
            detail: "\(read.joined(separator: ", ")) read in a separate worker process\(missing)")
    }

    func pdfCheck(_ environment: [String: String]) -> DoctorCheck {
        let path = environment["PATH"]
        guard let pdftotext = Subprocess.find("pdftotext", searchPath: path) else {
            return DoctorCheck(
                name: "pdf", passed: false, detail: "pdftotext is not installed: PDFs are skipped, each with a warning",
                fix: PDFExtractor.installHint)
        }
        let version = ToolRun.version(of: pdftotext, environment: environment).map { " \($0)" } ?? ""
        let outline =
            Subprocess.find("pdftohtml", searchPath: path) != nil
            ? "pdftohtml for the outline" : "no pdftohtml (no headings from the outline)"
        guard PDFExtractor.hasPopplerData else {
            return DoctorCheck(
                name: "pdf", passed: false,
                detail: "pdftotext\(version), \(outline); poppler-data is missing: Chinese and Japanese PDFs come out empty",
                fix: "apt-get install poppler-data")
        }
        return DoctorCheck(name: "pdf", passed: true, detail: "pdftotext\(version), \(outline), poppler-data")
    }

    func confinementCheck(_ worker: [String], _ environment: [String: String]) -> DoctorCheck {
        let limits = WorkerProcess.limits(WorkerPolicy())
        switch Confinement.status(worker, environment: environment, limits: limits) {
        case .available(_, let version):
            return DoctorCheck(
                name: "confinement", passed: true,
                detail: "the extraction worker runs in bubblewrap \(version) (no network, no home folder) under rlimits")
        case .unavailable(let reason):
            return DoctorCheck(
                name: "confinement", passed: true,
                detail: "bubblewrap confinement is not available (\(reason)): the extraction worker runs under rlimits only")
        }
    }
}
