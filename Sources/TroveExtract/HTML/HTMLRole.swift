/// What an HTML element does to the text around it, by its (lowercase) name.
enum HTMLRole: Equatable {
    /// Its content is never text: scripts, styles, `noscript` fallbacks, templates.
    case dropped
    /// `h1`…`h6`: a heading of this level.
    case heading(Int)
    /// A block set off by a blank line (p, blockquote, lists, tables, sections, …).
    case paragraph
    /// A block on lines of its own without a blank line around it (div, dt, dd, table rows, captions).
    case line
    /// A list item: a line of its own, marked `- `.
    case listItem
    /// A table cell: cells of one row share its line, separated by ` | `.
    case cell
    /// `pre`: lines and spaces kept as written.
    case preformatted
    /// `br`: a new line within the block.
    case lineBreak
    /// The document's `title` (in `head`).
    case title
    /// Anything else: text that flows into the surrounding block.
    case inline

    /// The role of the element named `name` (libxml2's HTML parser lowercases names).
    init(name: String) {
        switch name {
        case "script", "style", "noscript", "template": self = .dropped
        case "h1": self = .heading(1)
        case "h2": self = .heading(2)
        case "h3": self = .heading(3)
        case "h4": self = .heading(4)
        case "h5": self = .heading(5)
        case "h6": self = .heading(6)
        case "p", "blockquote", "ul", "ol", "dl", "menu", "dir", "table", "section", "article", "header", "footer",
            "nav", "aside", "main", "figure", "form", "fieldset", "details", "address", "center", "hr", "hgroup",
            "body":
            self = .paragraph
        case "div", "dt", "dd", "tr", "caption", "figcaption", "legend", "summary", "dialog", "option":
            self = .line
        case "li": self = .listItem
        case "td", "th": self = .cell
        case "pre", "listing", "xmp", "plaintext": self = .preformatted
        case "br": self = .lineBreak
        case "title": self = .title
        default: self = .inline
        }
    }
}
