import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML answer (S3's are small: listings, errors, upload ids), as a tree of elements
/// with their text. Namespaces are ignored (element names without prefix).
final class S3XMLElement {
    let name: String
    var text = ""
    var children: [S3XMLElement] = []

    init(name: String) { self.name = name }

    /// Parses a whole document; nil when it is not well-formed XML.
    static func parse(_ data: Data) -> S3XMLElement? {
        let parser = XMLParser(data: data)
        let builder = Builder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else { return nil }
        return root
    }

    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }
    func children(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }
    /// The text of the first child element called `name`.
    func value(_ name: String) -> String? { child(name)?.text }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: S3XMLElement?
        var stack: [S3XMLElement] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
            let element = S3XMLElement(name: name)
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }
    }
}
