import TroveOutput
import TroveSystem

/// What `tools/list` says: each tool's purpose (written for an agent deciding which to call), its input schema and
/// its output schema. All tools are read-only.
extension MCPTools {
    /// The server's `instructions` at `initialize`.
    static let instructions = """
        Trove is a local semantic index of the user's own documents (notes, docs, code). Use `search` to find \
        passages by meaning and keywords, `get` to read a document or the lines around a hit, `ask` for an answer \
        with cited sources, and `status` to see which folders are indexed. All tools are read-only.
        """

    /// The arguments each tool accepts (anything else is refused).
    static let argumentNames: [String: [String]] = [
        "search": ["query", "limit", "mode", "all_chunks", "min_score", "path", "ext", "since", "before", "root"],
        "get": ["path", "start_line", "end_line"],
        "ask": ["question", "limit", "chat_model", "extractive"],
        "status": [],
    ]

    private static let strings: JSON = ["type": "array", "items": ["type": "string"]]
    private static let readOnly: JSON = [
        "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false,
    ]
    private static let location: [String: JSON] = [
        "path": ["type": "string", "description": "absolute path of the document"],
        "start_line": ["type": "integer", "minimum": 1],
        "end_line": ["type": "integer", "minimum": 1],
        "heading": ["type": "string", "description": "heading path, e.g. Deploy › Keys; empty when none"],
    ]

    /// Numbered sources of an answer.
    private static let numberedSources: JSON = [
        "type": "array",
        "items": [
            "type": "object",
            "properties": .object(
                location.merging(["number": ["type": "integer"], "locator": LocatorOutput.schema]) { $1 }),
            "required": ["number", "path", "start_line", "end_line", "heading"],
        ],
    ]

    static let definitions: [JSON] = [
        [
            "name": "search",
            "title": "Search the user's documents",
            "description": """
            Find passages in the user's indexed documents (notes, docs, code) that match a query by meaning \
            and by keywords. Use it first whenever the user's own files might hold the answer; then call `get` \
            with a hit's path and lines to read more. Returns the best documents first (one passage each \
            unless all_chunks), each with path, line range, heading, scores and the passage text.
            """,
            "inputSchema": [
                "type": "object",
                "properties": [
                    "query": ["type": "string", "description": "what to look for, in words or a question"],
                    "limit": ["type": "integer", "minimum": 1, "maximum": 100, "default": 10],
                    "mode": [
                        "type": "string", "enum": ["hybrid", "vector", "keyword"], "default": "hybrid",
                        "description":
                            "hybrid: meaning and keywords fused; vector: meaning only; keyword: exact words (BM25)",
                    ],
                    "all_chunks": [
                        "type": "boolean", "default": false,
                        "description": "every matching passage instead of the best one per document",
                    ],
                    "min_score": [
                        "type": "number", "minimum": -1, "maximum": 1,
                        "description": "leave out passages whose cosine similarity is below this (not with keyword)",
                    ],
                    "path": strings.with(
                        "description",
                        "only documents whose path matches one of these globs (*.md, engineering, notes/retros)"),
                    "ext": strings.with("description", "only these file extensions, e.g. [\"md\", \"txt\"]"),
                    "since": [
                        "type": "string",
                        "description":
                            "only files modified at or after: 2024-05-01, 2024-05-01T09:30, or an age like 7d, 12h, 2w",
                    ],
                    "before": ["type": "string", "description": "only files modified before this date or age"],
                    "root": strings.with("description", "only documents of these indexed folders (path or last name)"),
                ],
                "required": ["query"],
                "additionalProperties": false,
            ],
            "outputSchema": [
                "type": "object",
                "properties": [
                    "query": ["type": "string"], "mode": ["type": "string"], "model": ["type": "string"],
                    "hits": [
                        "type": "array",
                        "items": [
                            "type": "object",
                            "properties": .object(
                                location.merging([
                                    "rank": ["type": "integer"],
                                    "score": ["type": "number", "description": "what the hits are ordered by"],
                                    "vector_score": ["type": "number", "description": "cosine similarity"],
                                    "keyword_score": ["type": "number", "description": "BM25"],
                                    "fused_score": ["type": "number", "description": "reciprocal rank fusion, 0-1"],
                                    "text": ["type": "string", "description": "the passage"],
                                    "uri": [
                                        "type": "string",
                                        "description": "file:// URI; #page=N (#slide=, #msg=, #cell=) for a PDF, DOCX, …",
                                    ],
                                    "locator": LocatorOutput.schema,
                                ]) { $1 }),
                            "required": ["rank", "path", "start_line", "end_line", "heading", "score", "text"],
                        ],
                    ],
                ],
                "required": ["query", "mode", "model", "hits"],
            ],
            "annotations": readOnly,
        ],
        [
            "name": "get",
            "title": "Read an indexed document",
            "description": """
            Read the text of one indexed document, whole or a line range, with line numbers — the same text \
            and numbering that `search` hits carry. Use it after `search` to read around a hit (e.g. \
            start_line a few lines before the hit). A path ending in #page=N (#slide=N, #msg=N, #cell=N) reads             that page of a PDF, DOCX, … as the hit's locator names it. Only documents inside the indexed folders             can be read.
            """,
            "inputSchema": [
                "type": "object",
                "properties": [
                    "path": [
                        "type": "string",
                        "description": "the document's path as search returned it, optionally ending in #page=N",
                    ],
                    "start_line": ["type": "integer", "minimum": 1, "description": "first line (default 1)"],
                    "end_line": ["type": "integer", "minimum": 1, "description": "last line (default: the end)"],
                ],
                "required": ["path"],
                "additionalProperties": false,
            ],
            "outputSchema": [
                "type": "object",
                "properties": [
                    "path": ["type": "string"], "start_line": ["type": "integer"], "end_line": ["type": "integer"],
                    "line_count": ["type": "integer", "description": "the document's last indexed line"],
                    "lines": [
                        "type": "array",
                        "items": [
                            "type": "object",
                            "properties": ["number": ["type": "integer"], "text": ["type": "string"]],
                            "required": ["number", "text"],
                        ],
                    ],
                    "text": ["type": "string", "description": "the lines joined, without numbers"],
                ],
                "required": ["path", "start_line", "end_line", "line_count", "lines", "text"],
            ],
            "annotations": readOnly,
        ],
        [
            "name": "ask",
            "title": "Answer from the user's documents",
            "description": """
            Answer a question from the user's indexed documents with a local chat model, citing its sources \
            as [n]. Use it when the user wants an answer rather than passages. Without a chat model it \
            answers in extractive mode: the best passages themselves (mode "extractive"). Mode "uncovered" \
            means no document covers the question. Slower than search: prefer search when you can read the \
            passages yourself.
            """,
            "inputSchema": [
                "type": "object",
                "properties": [
                    "question": ["type": "string"],
                    "limit": [
                        "type": "integer", "minimum": 1, "maximum": 50,
                        "description": "passages to retrieve (default 8)",
                    ],
                    "chat_model": ["type": "string", "description": "an Ollama chat model (default: the user's)"],
                    "extractive": ["type": "boolean", "description": "answer with the passages themselves, no model"],
                ],
                "required": ["question"],
                "additionalProperties": false,
            ],
            "outputSchema": [
                "type": "object",
                "properties": [
                    "mode": ["type": "string", "enum": ["generated", "extractive", "uncovered"]],
                    "answer": ["type": "string"],
                    "model": ["type": "string"],
                    "provider": ["type": "string", "description": "the server that wrote the answer: ollama or openai"],
                    "reason": ["type": "string", "description": "why no chat model wrote the answer"],
                    "truncated": ["type": "boolean", "description": "the model dropped part of the sources"],
                    "truncation_check": [
                        "type": "string", "description": "present when truncation could not be detected, and why",
                    ],
                    "done_reason": ["type": "string", "description": "stop, or length when the answer hit its limit"],
                    "error": ["type": "string", "description": "why a partial answer broke off"],
                    "sources": numberedSources,
                    "not_cited": numberedSources,
                ],
                "required": ["mode", "answer", "sources"],
            ],
            "annotations": readOnly,
        ],
        [
            "name": "status",
            "title": "What is indexed",
            "description": """
            Show what the index holds: its folders, document and chunk counts, the embedding model and when \
            it was last indexed; for each folder, how many files are new, changed or gone on disk since the last \
            run (current: false means search misses them until trove index runs) and whether that run was \
            interrupted. Use it to learn which folders search covers, whether they are up to date, or why a \
            search finds nothing.
            """,
            "inputSchema": ["type": "object", "properties": [:], "additionalProperties": false],
            "outputSchema": [
                "type": "object",
                "properties": [
                    "index": ["type": "string"], "documents": ["type": "integer"], "chunks": ["type": "integer"],
                    "bytes_on_disk": ["type": "integer"], "embedder": ["type": "string"], "model": ["type": "string"],
                    "dimension": ["type": "integer"],
                    "last_indexed": ["type": "string", "description": "ISO 8601, UTC"],
                    "folders": [
                        "type": "array",
                        "items": [
                            "type": "object",
                            "properties": [
                                "path": ["type": "string"], "documents": ["type": "integer"],
                                "new": ["type": "integer"], "changed": ["type": "integer"],
                                "gone": [
                                    "type": ["integer", "null"],
                                    "description": "null when the walk stopped at its time budget",
                                ],
                                "partial": [
                                    "type": "boolean",
                                    "description": "the walk stopped early: new and changed are lower bounds",
                                ],
                                "current": ["type": "boolean"], "interrupted": ["type": "boolean"],
                                "files_left": ["type": "integer"],
                                "last_run": ["type": ["string", "null"], "description": "ISO 8601, UTC"],
                                "problem": ["type": "string"],
                            ],
                            "required": ["path", "documents"],
                        ],
                    ],
                ],
                "required": ["index", "documents", "chunks", "bytes_on_disk", "folders"],
            ],
            "annotations": readOnly,
        ],
    ]
}

extension JSON {
    /// An object with one more member.
    fileprivate func with(_ key: String, _ value: JSON) -> JSON {
        var members = objectValue ?? [:]
        members[key] = value
        return .object(members)
    }
}
