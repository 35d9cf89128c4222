/// The kind of a file, which decides how it is read and chunked.
package enum DocumentKind: Sendable, Equatable {
    case markdown, plainText, restructuredText, org
    case code(language: String)
    /// Not text: read by an extractor in the extraction worker (PDF, HTML, DOCX, …).
    case extracted(DocumentFormat)

    /// The kind for a path's extension, or nil when the file is not one we index as text.
    ///
    /// The extension is compared case-insensitively. Extensionless files are indexed only for a few well-known
    /// names (README, LICENSE, CHANGELOG, NOTES, TODO … as plain text; Makefile, Dockerfile as code). JSON, CSV and
    /// logs are data, not prose, and are left out; so is everything binary (images, archives) but the formats an
    /// extractor reads (`DocumentFormat`: PDF, HTML, DOCX, …).
    package init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        let dot = name.lastIndex(of: ".")
        guard let dot, dot != name.startIndex else {
            // No extension (or a dotfile such as `.bashrc`, which the crawler never offers anyway).
            guard let kind = Self.extensionlessNames[name.lowercased()] else { return nil }
            self = kind
            return
        }
        let ext = name[name.index(after: dot)...].lowercased()
        // Before the code languages: HTML is read for its text, not indexed as markup.
        if let format = DocumentFormat(fileExtension: ext) {
            self = .extracted(format)
            return
        }
        switch ext {
        case "md", "markdown", "mdx", "mdown", "mkd": self = .markdown
        case "txt", "text", "adoc", "asciidoc", "tex": self = .plainText
        case "rst": self = .restructuredText
        case "org": self = .org
        default:
            guard let language = Self.codeLanguages[ext] else { return nil }
            self = .code(language: language)
        }
    }

    /// Extensionless file names (lowercased) worth indexing.
    private static let extensionlessNames: [String: DocumentKind] = [
        "readme": .plainText, "license": .plainText, "licence": .plainText, "copying": .plainText,
        "changelog": .plainText, "changes": .plainText, "history": .plainText, "news": .plainText,
        "notes": .plainText, "todo": .plainText, "authors": .plainText, "contributing": .plainText,
        "install": .plainText, "makefile": .code(language: "make"), "dockerfile": .code(language: "dockerfile"),
    ]

    /// Source-code extensions (lowercased) and the language they name.
    private static let codeLanguages: [String: String] = [
        "swift": "swift", "py": "python", "pyi": "python", "js": "javascript", "mjs": "javascript",
        "cjs": "javascript", "jsx": "javascript", "ts": "typescript", "tsx": "typescript", "go": "go", "rs": "rust",
        "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp", "hxx": "cpp",
        "java": "java", "kt": "kotlin", "kts": "kotlin", "rb": "ruby", "php": "php", "sh": "shell", "bash": "shell",
        "zsh": "shell", "fish": "shell", "sql": "sql", "yaml": "yaml", "yml": "yaml", "toml": "toml",
        "css": "css", "scss": "css", "lua": "lua", "pl": "perl", "pm": "perl",
        "r": "r", "scala": "scala", "cs": "csharp", "m": "objective-c", "mm": "objective-c", "ex": "elixir",
        "exs": "elixir", "erl": "erlang", "hs": "haskell", "ml": "ocaml", "mli": "ocaml", "clj": "clojure",
        "cljs": "clojure", "dart": "dart", "vue": "vue", "svelte": "svelte", "zig": "zig", "nim": "nim",
        "jl": "julia", "proto": "protobuf", "graphql": "graphql", "tf": "terraform", "ps1": "powershell",
        "groovy": "groovy", "gradle": "groovy", "fs": "fsharp", "vim": "vim", "el": "elisp",
    ]
}
