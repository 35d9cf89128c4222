import CLibXML2
import TroveIngest

/// Walks a parsed HTML tree into a `DocumentBuilder`: text gathered into blocks, whitespace collapsed outside `pre`,
/// h1–h6 turned into nested heading paths.
///
/// The walk is a loop over the tree's links, not a recursion, so no page can exhaust the stack; nesting deeper than
/// `ExtractionLimits.maxNesting` is refused as damaged.
struct HTMLRenderer {
    /// The document being written.
    var builder: DocumentBuilder
    private let maxNesting: Int
    /// The UTF-8 bytes of the block being gathered.
    private var text: [UInt8] = []
    /// A space is owed before the next visible character (collapsed whitespace).
    private var pendingSpace = false
    /// How many `pre` elements enclose the current node.
    private var preformatted = 0
    /// The level of the heading being gathered, if any: its blocks flow into one heading line.
    private var headingLevel: Int?
    /// The headings above the current position, outermost first.
    private var headings: [(level: Int, text: String)] = []
    /// The page's title, once seen: the section of the text before its first heading.
    private var title: String?
    /// The current block is a list item (its line starts `- `).
    private var listItem = false

    /// Whether the page's `title` is written (a section of its own before the first heading).
    private let titled: Bool
    /// Where each `id` (and `<a name>`) of the page falls: the line its text starts on. An EPUB's print-page
    /// markers are placed by them.
    private(set) var anchors: [String: Int] = [:]
    /// The last id met since a line of text was written: the anchor of the next heading (an `<a name>` before an
    /// `h2`, a `section id` around it, the heading's own id).
    private var pendingAnchor: String?

    /// A renderer writing into a new document read by `extractor`; without `titled`, the `title` is left out.
    init(extractor: String, limits: ExtractionLimits, titled: Bool = true) {
        builder = DocumentBuilder(extractor: extractor, limits: limits)
        maxNesting = limits.maxNesting
        self.titled = titled
    }

    /// Renders the tree under `root` (the `html` element; nil for an empty document).
    mutating func render(_ root: xmlNodePtr?) throws(ExtractionFailure) {
        guard let root else { return }
        var node = root
        var depth = 0
        while true {
            if try enter(node), let child = node.pointee.children {
                depth += 1
                guard depth <= maxNesting else {
                    throw ExtractionFailure(.damaged, "html elements nested deeper than \(maxNesting)")
                }
                node = child
                continue
            }
            // No (more) children: leave this node, then each parent whose last child it was, until a sibling.
            try leave(node)
            while node != root, node.pointee.next == nil, let parent = node.pointee.parent {
                depth -= 1
                node = parent
                try leave(node)
            }
            guard node != root, let next = node.pointee.next else { break }
            node = next
        }
        try endBlock(blank: true)
    }

    /// Handles the start of `node`; true when its children are to be walked.
    private mutating func enter(_ node: xmlNodePtr) throws(ExtractionFailure) -> Bool {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            if let content = node.pointee.content { append(content) }
            return false
        case XML_ELEMENT_NODE: break
        default: return false
        }
        switch role(of: node) {
        case .dropped: return false
        case .heading(let level):
            try endBlock(blank: true)
            headingLevel = level
        case .paragraph, .preformatted: try endBlock(blank: true)
        case .line, .title: try endBlock(blank: false)
        case .listItem:
            try endBlock(blank: false)
            listItem = true
        case .cell:
            if !text.isEmpty { text.append(contentsOf: " | ".utf8) }
            pendingSpace = false
        case .lineBreak: try endBlock(blank: false)
        case .inline: break
        }
        if role(of: node) == .preformatted { preformatted += 1 }
        if let id = attribute("id", of: node) ?? (name(node) == "a" ? attribute("name", of: node) : nil), !id.isEmpty {
            // Inside a block already gathering text, what follows the id starts on the block's next line.
            if anchors[id] == nil { anchors[id] = builder.lineCount + (text.isEmpty || headingLevel != nil ? 0 : 1) }
            pendingAnchor = id
        }
        return true
    }

    /// The value of the attribute `key` of an element, read from libxml2's list without copying the others.
    private func attribute(_ key: String, of node: xmlNodePtr) -> String? {
        var property = node.pointee.properties
        while let current = property {
            if let name = current.pointee.name, String(cString: name) == key {
                return current.pointee.children?.pointee.content.map { String(cString: $0) }
            }
            property = current.pointee.next
        }
        return nil
    }

    /// Handles the end of `node` (after its children).
    private mutating func leave(_ node: xmlNodePtr) throws(ExtractionFailure) {
        guard node.pointee.type == XML_ELEMENT_NODE else { return }
        switch role(of: node) {
        case .heading(let level):
            let line = gathered()
            headingLevel = nil
            guard !line.isEmpty else { return }
            headings.removeAll { $0.level >= level }
            headings.append((level, line))
            builder.heading(headings.map(\.text), anchor: pendingAnchor)
            pendingAnchor = nil
            try builder.line(line)
            builder.blankLine()
        case .title:
            let line = gathered()
            guard titled, title == nil, !line.isEmpty, node.pointee.parent.map(name) == "head" else { return }
            title = line
            builder.heading([line])
            try builder.line(line)
            builder.blankLine()
        case .preformatted:
            try endBlock(blank: true)
            preformatted -= 1
        case .paragraph: try endBlock(blank: true)
        case .line, .listItem: try endBlock(blank: false)
        case .dropped, .cell, .lineBreak, .inline: break
        }
    }

    /// The role of an element node, from its name.
    private func role(of node: xmlNodePtr) -> HTMLRole {
        HTMLRole(name: name(node))
    }

    /// An element's name as libxml2 holds it.
    private func name(_ node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// Adds a text node's bytes to the block: as is inside `pre`, otherwise with every run of whitespace (no-break
    /// spaces included) collapsed to one space.
    private mutating func append(_ content: UnsafePointer<xmlChar>) {
        var byte = content
        if preformatted > 0 {
            while byte.pointee != 0 {
                text.append(byte.pointee)
                byte += 1
            }
            return
        }
        while byte.pointee != 0 {
            let value = byte.pointee
            if value == 0x20 || (0x09...0x0D).contains(value) {
                pendingSpace = true
            } else if value == 0xC2, byte[1] == 0xA0 {
                pendingSpace = true
                byte += 1
            } else {
                if pendingSpace, !text.isEmpty { text.append(0x20) }
                pendingSpace = false
                text.append(value)
            }
            byte += 1
        }
    }

    /// The gathered text as a string, and the gathering reset.
    private mutating func gathered() -> String {
        defer {
            text.removeAll(keepingCapacity: true)
            pendingSpace = false
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Ends the current block: writes its text (a list item marked `- `; preformatted text line by line, right-trimmed,
    /// without blank lines at its edges), then a blank line when `blank`. Inside a heading, a block only adds a space.
    private mutating func endBlock(blank: Bool) throws(ExtractionFailure) {
        if headingLevel != nil {
            pendingSpace = true
            return
        }
        let block = gathered()
        if preformatted > 0 {
            var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed()
            }
            while lines.first?.isEmpty == true { lines.removeFirst() }
            while lines.last?.isEmpty == true { lines.removeLast() }
            for line in lines { try builder.line(String(line)) }
        } else if !block.isEmpty {
            try builder.line(listItem ? "- " + block : block)
            pendingAnchor = nil
        }
        listItem = false
        if blank { builder.blankLine() }
    }
}
