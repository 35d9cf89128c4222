import TroveIngest

/// An OOXML part's relationships (`word/_rels/document.xml.rels` for `word/document.xml`): id → type and the entry
/// the target names, resolved against the part. External targets (hyperlinks) are left out.
struct Relationships {
    /// One relationship to a part inside the package.
    struct Relationship {
        /// The relationship type URI; compared by its last segment (`officeDocument`, `slide`, `notesSlide`), which
        /// Transitional and Strict OOXML share.
        var type: String
        /// The entry name of the target.
        var target: String
    }

    /// The relationships by id, in document order too.
    private(set) var byID: [String: Relationship] = [:]
    private(set) var all: [Relationship] = []

    /// The relationships of `part` (the package itself for ""), empty when it has none.
    init(of part: String, in archive: inout ZipArchive, limits: ExtractionLimits) throws(ExtractionFailure) {
        let folder = part.split(separator: "/", omittingEmptySubsequences: true).dropLast().joined(separator: "/")
        let name = part.split(separator: "/").last.map(String.init) ?? ""
        let relsName = (folder.isEmpty ? "" : folder + "/") + "_rels/" + name + ".rels"
        guard let bytes = try archive.read(relsName) else { return }
        let reader = Reader()
        try XMLStream.parse(bytes, part: relsName, limits: limits, into: reader)
        for (id, type, target, external) in reader.found where !external {
            guard let entry = ZipPath.resolve(target, from: part.isEmpty ? "/" : part) else { continue }
            let relationship = Relationship(type: type, target: entry)
            if byID[id] == nil { byID[id] = relationship }
            all.append(relationship)
        }
    }

    /// The package's main part (the target of its `officeDocument` relationship, else `fallback`) and its bytes;
    /// `damaged` naming the part when it is missing, as the file is then not what its name says (`what`).
    static func mainPart(of archive: inout ZipArchive, fallback: String, what: String, limits: ExtractionLimits)
        throws(ExtractionFailure) -> (name: String, bytes: [UInt8])
    {
        let name = try Relationships(of: "", in: &archive, limits: limits).first("officeDocument") ?? fallback
        guard let bytes = try archive.read(name) else {
            throw ExtractionFailure(.damaged, "no \(name) in the zip (not \(what))")
        }
        return (name, bytes)
    }

    /// The first target whose type ends in `/kind`.
    func first(_ kind: String) -> String? {
        all.first { $0.type.hasSuffix("/" + kind) }?.target
    }

    private final class Reader: XMLHandler {
        var found: [(id: String, type: String, target: String, external: Bool)] = []

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            guard name == "Relationship", let id = attributes["Id"], let target = attributes["Target"] else { return }
            found.append((id, attributes["Type"] ?? "", target, attributes["TargetMode"] == "External"))
        }

        func end(_ name: String, namespace: String) {}
        func text(_ text: String) {}
    }
}
