import TroveIngest
import TroveStore

/// An open index: the one API every front end uses (the CLI, `trove serve`, `trove mcp`). It owns one reader
/// connection, the embedder the index records (one per open index, so a built-in model loads once), and the
/// vectors once loaded. Before each read it checks a cheap version (`PRAGMA data_version`) and reloads what another
/// process changed. Writers (indexing) get a connection of their own, so readers keep answering meanwhile.
///
/// An actor: SQLite is synchronous behind this one owner, while long waits (an embedding round trip, a streamed
/// answer) leave it free for other calls, so a long `ask` does not hold up a `search`.
public actor TroveIndex {
    /// How the index was opened.
    public nonisolated let configuration: TroveConfiguration
    let store: any IndexBackend
    /// The embedder for new vectors and queries: chosen at open, replaced when the index records another model.
    var embedder: (any Embedder)?
    /// The embedder the manifest recorded when `embedder` was chosen; a change means the index was re-embedded.
    private var embeddedFor: IndexedEmbedder?
    private var retriever: Retriever?
    /// `PRAGMA data_version` when `retriever` was last checked.
    private var checkedVersion: Int64 = -1
    /// The chunks' count and highest id `retriever` was loaded at.
    private var loadedContent: [Int64] = []
    /// When a `.automatic` search scans the int8 copy; warm after `warmUp`, handed to every retriever.
    private var automaticScan = AutomaticScan()

    /// Opens an existing index; its embedder is the one it records. A missing index is an error that says how to
    /// create one.
    public init(opening configuration: TroveConfiguration) throws {
        self.configuration = configuration
        store = try Self.openStore(configuration, createIfMissing: false)
        let manifest = try store.manifest()
        embeddedFor = manifest.map(IndexedEmbedder.init)
        embedder = try manifest.map { manifest in
            try configuration.embedder(EmbedderChoice(), indexed: IndexedEmbedder(manifest))
        }
    }

    /// Opens the index, creating it (mode 0600) when missing, with the embedder `choice` names: without a provider or
    /// model an existing index keeps its own. A choice that conflicts with the index is refused when indexing.
    public init(creating configuration: TroveConfiguration, embedder choice: EmbedderChoice) throws {
        self.configuration = configuration
        store = try Self.openStore(configuration, createIfMissing: true)
        embeddedFor = try store.manifest().map(IndexedEmbedder.init)
        embedder = try configuration.embedder(choice, indexed: embeddedFor)
    }

    /// The store `configuration.location` names: a SQLite file, or a PostgreSQL URL.
    static func openStore(_ configuration: TroveConfiguration, createIfMissing: Bool) throws -> any IndexBackend {
        let store = try configuration.location.open(createIfMissing: createIfMissing)
        (store as? SQLiteStore)?.vectorLoad = configuration.vectorLoad
        return store
    }

    /// The index's location as it may be shown: a path, or a URL without its password.
    public nonisolated var location: String { configuration.location.description }

    /// The embedding model the index records, or nil for a new index.
    public func embeddingModel() throws -> String? { try store.manifest()?.model }
    /// The provider the index records; nil before its first run.
    public func provider() throws -> Provider? { try store.manifest()?.provider }

    /// The embedder this index uses for indexing and queries.
    public func currentEmbedder() throws -> any Embedder {
        guard let embedder else { throw IndexError.empty(location) }
        return embedder
    }

    // MARK: Searching

    /// The results for `request`, best first. The embedder is not called in keyword mode.
    public func search(_ request: SearchRequest) async throws -> [SearchHit] {
        let retriever = try currentRetriever()
        guard request.mode != .keyword else { return try retriever.search(request, queryVector: nil) }
        let embedder = try currentEmbedder()
        // The embedding is a round trip to the model server (or seconds of BLAS): load the vectors meanwhile.
        let text = retriever.manifest.queryPrefix + request.query
        async let raw = embedder.embed([text])
        let loaded = Result { try retriever.prepareVectors(for: request.scan, aside: true) }
        let vector = try retriever.checkedQuery(try await raw.first, model: embedder.model)
        _ = try loaded.get()
        // A cancelled search (an MCP client gave up on it) stops before ranking.
        try Task.checkCancellation()
        return try retriever.search(request, queryVector: vector)
    }

    /// Loads the vectors, and the built-in model when the index uses it, so the first search does not pay for them
    /// (`trove serve`, `trove mcp`, `trove web`). An Ollama model is not touched: it loads on the server's side.
    /// From here on this process counts as warm: a large index's default searches scan the int8 copy, built now
    /// (and again after a reload, aside, started by the first search, which scans exactly meanwhile).
    public func warmUp() async throws {
        automaticScan.warm = true
        let retriever = try currentRetriever()
        retriever.automaticScan = automaticScan
        try retriever.prepareVectors(for: .automatic)
        if let embedder, embedder.provider == .builtin { _ = try await embedder.inspect() }
    }

    /// Moves the size from which a warm process's `.automatic` searches scan the int8 copy (tests, which cannot
    /// index the measured size).
    package func scanInt8(fromFloats minimumFloats: Int) {
        automaticScan.minimumFloats = minimumFloats
        retriever?.automaticScan = automaticScan
    }

    /// Whether the loaded vectors' int8 copy is built (tests).
    package func holdsInt8Copy() -> Bool { retriever?.holdsInt8Copy ?? false }

    /// Refuses a `--model` that differs from the model the index was built with: their vectors don't compare.
    public func checkRequestedModel(_ model: String?) throws { try currentRetriever().checkRequestedModel(model) }

    /// Whether any indexed document passes `filter` (to tell "nothing matched the filters" from "no match").
    public func anyDocumentMatches(_ filter: SearchFilter) throws -> Bool {
        try currentRetriever().anyDocumentMatches(filter)
    }

    /// Reloads now if another process changed the index (every search does this itself); true when it did, after a
    /// first load.
    @discardableResult
    public func refresh() throws -> Bool {
        let loaded = retriever != nil
        let before = retriever.map(ObjectIdentifier.init)
        let current = try currentRetriever()
        return loaded && ObjectIdentifier(current) != before
    }

    /// The retriever, reloaded when another process changed the index: `data_version` is one pragma, read before
    /// every search; only when it moved are the chunk count, highest id and manifest compared.
    func currentRetriever() throws -> Retriever {
        let version = try store.dataVersion()
        if let retriever, version == checkedVersion { return retriever }
        let content = try store.contentVersion()
        if let retriever, content == loadedContent, try store.manifest() == retriever.manifest {
            checkedVersion = version
            return retriever
        }
        let fresh = try Retriever(store: store)
        fresh.automaticScan = automaticScan
        let recorded = IndexedEmbedder(fresh.manifest)
        // An embedder chosen for a new index records itself when it indexes; another process may record another.
        let held = embeddedFor ?? embedder.map { IndexedEmbedder(provider: $0.provider, model: $0.model) }
        if held != recorded {
            // Re-embedded with another model (`trove index --reembed --model …`): queries must follow. An embedder
            // chosen for this index that differs from the one it records (its probe vector agreed) is kept.
            embedder = try configuration.embedder(EmbedderChoice(), indexed: recorded)
        }
        embeddedFor = recorded
        retriever = fresh
        loadedContent = content
        checkedVersion = version
        return fresh
    }

    /// Forgets the loaded state after this connection wrote (its own commits do not move `data_version`).
    func invalidate() {
        retriever = nil
        checkedVersion = -1
    }

    // MARK: Status and housekeeping

    /// Folders, counts, model and when it was last indexed.
    public func status() throws -> IndexStatus {
        let manifest = try store.manifest()
        let stats = try store.statistics()
        return IndexStatus(
            location: location, bytesOnDisk: stats.bytesOnDisk, provider: manifest?.provider, model: manifest?.model,
            modelDigest: manifest?.modelDigest, dimension: manifest?.dimension,
            chunkerVersion: manifest?.chunkerVersion, chunkerParameters: manifest?.chunkerParameters,
            documents: stats.documents, chunks: stats.chunks,
            folders: try store.roots().map { IndexStatus.Folder(path: $0.path, documents: $0.documentCount) },
            lastIndexed: try store.lastIndexedAt(), annIndex: try store.annIndexState())
    }

    /// Every indexed document, in index order.
    public func documents() throws -> [IndexedDocument] {
        try store.searchableDocuments().map {
            IndexedDocument(rootPath: $0.rootPath, relativePath: $0.path, modifiedNanoseconds: $0.modifiedNanoseconds)
        }
    }

    /// A folder as the index records it: absolute, standardized (relative paths start at the current directory).
    public static func folderPath(_ folder: String) -> String { Crawler.standardizedRoot(folder) }

    /// Removes an indexed folder with its documents, chunks and vectors; nil when the index has no such folder.
    /// `folder` may be relative to the current directory.
    public func forget(folder: String) throws -> ForgetResult? {
        let path = Crawler.standardizedRoot(folder)
        defer { invalidate() }
        return try store.forgetRoot(path: path).map {
            ForgetResult(folder: path, documents: $0.documents, chunks: $0.chunks)
        }
    }

    /// Rewrites the index file without its free pages; returns its size before and after.
    public func vacuum() throws -> VacuumResult {
        let before = try store.statistics().bytesOnDisk
        try store.vacuum()
        return VacuumResult(bytesBefore: before, bytesAfter: try store.statistics().bytesOnDisk)
    }

    /// Folds the write-ahead log into the index file (after a large run, while nobody else is likely writing).
    public func checkpoint() throws { try store.checkpoint() }
}

extension IndexedEmbedder {
    /// The embedder a manifest records.
    init(_ manifest: IndexManifest) { self.init(provider: manifest.provider, model: manifest.model) }
}
