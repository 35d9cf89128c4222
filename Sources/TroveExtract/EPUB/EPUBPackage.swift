import TroveIngest

/// An EPUB's package: the OPF file `META-INF/container.xml` names, its manifest and its spine resolved to entry names
/// (each file once, in reading order, `#fragment`s dropped), and where its table of contents is.
struct EPUBPackage {
    /// One spine file: its entry name and media type.
    struct Item {
        var entry: String
        var mediaType: String
    }

    /// The OPF file's entry name.
    let opf: String
    /// The spine, in reading order, each file once.
    let spine: [Item]
    /// The EPUB 3 navigation document and the EPUB 2 NCX, when the manifest names them.
    let navigation: String?
    let ncx: String?

    /// The package of the book in `archive`; `damaged` when there is no container or OPF.
    init(in archive: inout ZipArchive, limits: ExtractionLimits) throws(ExtractionFailure) {
        guard let container = try archive.read("META-INF/container.xml") else {
            throw ExtractionFailure(.damaged, "no META-INF/container.xml in the zip (not an EPUB)")
        }
        let rootfiles = Collector(element: "rootfile")
        try XMLStream.parse(container, part: "META-INF/container.xml", limits: limits, into: rootfiles)
        let roots = rootfiles.found.filter { ($0["media-type"] ?? "") == "application/oebps-package+xml" }
        guard let path = (roots.first ?? rootfiles.found.first)?["full-path"],
            let opf = ZipPath.resolve(path, from: "/"), let bytes = try archive.read(opf)
        else {
            throw ExtractionFailure(.damaged, "the EPUB's container names no package file that is in the zip")
        }
        self.opf = opf
        let reader = Collector(element: "item", "itemref", "spine")
        try XMLStream.parse(bytes, part: opf, limits: limits, into: reader)
        var manifest: [String: [String: String]] = [:]
        for item in reader.found where item[Collector.elementKey] == "item" {
            if let id = item["id"], manifest[id] == nil { manifest[id] = item }
        }
        var seen: Set<String> = []
        var spine: [Item] = []
        for reference in reader.found where reference[Collector.elementKey] == "itemref" {
            guard let item = reference["idref"].flatMap({ manifest[$0] }), let href = item["href"],
                let entry = ZipPath.resolve(href, from: opf), seen.insert(entry).inserted
            else { continue }
            spine.append(Item(entry: entry, mediaType: item["media-type"] ?? ""))
        }
        self.spine = spine
        navigation = manifest.values.first { ($0["properties"] ?? "").split(separator: " ").contains("nav") }
            .flatMap { $0["href"] }.flatMap { ZipPath.resolve($0, from: opf) }
        let tocID = reader.found.first { $0[Collector.elementKey] == "spine" }?["toc"]
        let ncxItem = tocID.flatMap { manifest[$0] }
            ?? manifest.values.first { $0["media-type"] == "application/x-dtbncx+xml" }
        ncx = ncxItem?["href"].flatMap { ZipPath.resolve($0, from: opf) }
    }

    /// Entries encrypted with a real cipher (DRM), from `META-INF/encryption.xml`; fonts obfuscated by the IDPF or
    /// Adobe scheme are not encryption of the text.
    static func encryptedEntries(in archive: inout ZipArchive, limits: ExtractionLimits) throws(ExtractionFailure)
        -> Set<String>
    {
        guard let bytes = try archive.read("META-INF/encryption.xml") else { return [] }
        let reader = Collector(element: "EncryptionMethod", "CipherReference")
        try XMLStream.parse(bytes, part: "META-INF/encryption.xml", limits: limits, into: reader)
        var encrypted: Set<String> = []
        var algorithm = ""
        for element in reader.found {
            if element[Collector.elementKey] == "EncryptionMethod" {
                algorithm = element["Algorithm"] ?? ""
            } else if !algorithm.hasPrefix("http://www.idpf.org/2008/embedding"),
                !algorithm.hasPrefix("http://ns.adobe.com/pdf/enc"), let uri = element["URI"],
                let entry = ZipPath.resolve(uri, from: "/")
            {
                encrypted.insert(entry)
            }
        }
        return encrypted
    }

    /// The reader of the first of the navigation document and the NCX that parses and in which `found` holds, or
    /// nil: a list that does not parse only loses what it lists (titles, pages), never the book.
    static func firstNavigation<Reader: XMLHandler>(
        navigation: String?, ncx: String?, in archive: inout ZipArchive, limits: ExtractionLimits,
        reader: (String) -> Reader, found: (Reader) -> Bool
    ) throws(ExtractionFailure) -> Reader? {
        for part in [navigation, ncx].compactMap({ $0 }) {
            guard let bytes = try archive.read(part) else { continue }
            let handler = reader(part)
            do throws(ExtractionFailure) {
                try XMLStream.parse(bytes, part: part, limits: limits, into: handler)
            } catch where error.kind == .damaged {
                continue
            }
            if found(handler) { return handler }
        }
        return nil
    }

    /// The attributes of every element with one of the given local names, in document order (the name under
    /// `elementKey`).
    final class Collector: XMLHandler {
        static let elementKey = "\u{0}element"
        let elements: Set<String>
        var found: [[String: String]] = []

        init(element: String...) { elements = Set(element) }

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            guard elements.contains(name) else { return }
            var attributes = attributes
            attributes[Self.elementKey] = name
            found.append(attributes)
        }

        func end(_ name: String, namespace: String) {}
        func text(_ text: String) {}
    }
}
