#if canImport(FoundationXML)
import FoundationXML
#endif
import Foundation
import TroveIngest

/// What a container's XML part says, as it is read: elements by local name and namespace, attributes by local name
/// (prefixes vary between writers; the namespaces do not), and text. A handler that throws stops the parse.
protocol XMLHandler: AnyObject {
    /// An element opens.
    func start(_ name: String, namespace: String, attributes: [String: String]) throws(ExtractionFailure)
    /// An element closes.
    func end(_ name: String, namespace: String) throws(ExtractionFailure)
    /// Character data (entities decoded), in one or more pieces.
    func text(_ text: String) throws(ExtractionFailure)
}

/// Parses one XML part of a container with FoundationXML's `XMLParser` (libxml2's SAX parser underneath), which never
/// resolves external entities (its default) and stops at entity loops (billion laughs); nesting deeper than
/// `maxNesting` and any well-formedness error end in `damaged`, naming the part.
enum XMLStream {
    static func parse(_ bytes: [UInt8], part: String, limits: ExtractionLimits, into handler: some XMLHandler)
        throws(ExtractionFailure)
    {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        // Never fetch or read anything an entity or a DTD names (XXE); this is also XMLParser's default.
        parser.shouldResolveExternalEntities = false
        let bridge = Bridge(handler: handler, part: part, maxNesting: limits.maxNesting)
        parser.delegate = bridge
        let finished = parser.parse()
        if let failure = bridge.failure { throw failure }
        guard finished, parser.parserError == nil else {
            let code = (parser.parserError as NSError?)?.code ?? 0
            let reason = code == 89 ? "entity loop (billion laughs?)" : "error \(code)"
            throw ExtractionFailure(.damaged, "\(part) is not well-formed XML (\(reason), line \(parser.lineNumber))")
        }
    }

    /// Forwards XMLParser's callbacks to the handler, counting depth, and keeps the first failure.
    private final class Bridge<Handler: XMLHandler>: NSObject, XMLParserDelegate {
        let handler: Handler
        let part: String
        let maxNesting: Int
        var depth = 0
        var failure: ExtractionFailure?

        init(handler: Handler, part: String, maxNesting: Int) {
            self.handler = handler
            self.part = part
            self.maxNesting = maxNesting
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            depth += 1
            guard depth <= maxNesting else {
                stop(parser, ExtractionFailure(.damaged, "\(part) nests elements deeper than \(maxNesting)"))
                return
            }
            // By local name; where a prefixed and a plain attribute share one (PPTX's `<p:sldId id="256"
            // r:id="rId2">`), the prefixed one wins, as it is the reference into the package.
            var attributes: [String: String] = [:]
            for (key, value) in attributeDict {
                guard let colon = key.lastIndex(of: ":") else {
                    if attributes[key] == nil { attributes[key] = value }
                    continue
                }
                attributes[String(key[key.index(after: colon)...])] = value
            }
            run(parser) { () throws(ExtractionFailure) in
                try handler.start(elementName, namespace: namespaceURI ?? "", attributes: attributes)
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            depth -= 1
            run(parser) { () throws(ExtractionFailure) in try handler.end(elementName, namespace: namespaceURI ?? "") }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            run(parser) { () throws(ExtractionFailure) in try handler.text(string) }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            let text = String(decoding: CDATABlock, as: UTF8.self)
            run(parser) { () throws(ExtractionFailure) in try handler.text(text) }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            parser.abortParsing()
        }

        private func run(_ parser: XMLParser, _ body: () throws(ExtractionFailure) -> Void) {
            guard failure == nil else { return }
            do throws(ExtractionFailure) { try body() } catch { stop(parser, error) }
        }

        private func stop(_ parser: XMLParser, _ error: ExtractionFailure) {
            if failure == nil { failure = error }
            parser.abortParsing()
        }
    }
}
