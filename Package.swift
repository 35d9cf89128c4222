// swift-tools-version: 6.2
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode comes from the tools version.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Optimised even in our debug builds: the encoder (unoptimised SIMD and loops make it ~50x slower, too slow for the
/// semantic tests) and TroveSystem (its SHA-256 hashes the 90 MB model when the weights cache is built). Since tools
/// version 6.2 SwiftPM accepts unsafe flags in a package used as a versioned dependency, so they need no condition on
/// where the package sits.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// Code generation for the AVX2 and AVX-512 builds of the encoder's loops (the sets `CPU.avx2` and `CPU.avx512` that
/// are checked before calling them).
func instructionSets(_ sets: [String]) -> [SwiftSetting] {
    #if arch(x86_64)
    [.unsafeFlags(sets.flatMap { ["-Xcc", "-m" + $0] })]
    #else
    []
    #endif
}
let avx2Settings = instructionSets(["avx2", "fma"])
let avx512Settings = instructionSets(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])

let package = Package(
    name: "Trove",
    products: [
        .library(name: "TroveKit", targets: ["TroveKit"]),
        .library(name: "Ollama", targets: ["Ollama"]),
        .library(name: "OpenAICompatible", targets: ["OpenAICompatible"]),
        .executable(name: "trove", targets: ["trove"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq, for the PostgreSQL store (Debian's libpq-dev; its header lives in /usr/include/postgresql).
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // libxml2's HTML parser (MIT), for HTML and XHTML (also EPUB chapters and mail bodies): linked, run only in
        // the extraction worker, never with NOENT, DTDLOAD or HUGE.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // zlib's raw inflate, for the zip containers (DOCX, ODT, PPTX, EPUB): Trove's own zip reader sits on it, so
        // every cap on a container is Trove's and exact (Debian's zlib1g-dev; zlib is in every process already).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The ground floor: what every target of ours may use, depending on nothing of ours (fd I/O that retries
        // EINTR, atomic files, JSON, line framing, hashes, the error protocol).
        // Optimised in debug builds too: its SHA-256 hashes the 90 MB model when the weights cache is built, which
        // took minutes unoptimised in the tests.
        .target(name: "TroveSystem", swiftSettings: strict + optimisedInDebug),
        .target(name: "Ollama", swiftSettings: strict),
        // Any OpenAI-compatible server (llama.cpp, LM Studio, vLLM, LocalAI, OpenAI): Foundation only, like Ollama.
        .target(name: "OpenAICompatible", swiftSettings: strict),
        // uchardet (Mozilla's universal charset detector), for text files that are not valid UTF-8.
        .systemLibrary(
            name: "CUchardet",
            pkgConfig: "uchardet",
            providers: [.apt(["libuchardet-dev"])]
        ),
        .target(name: "TroveIngest", dependencies: ["CUchardet", "TroveSystem"], swiftSettings: strict),
        // Readers of non-text formats (PDF, HTML, DOCX/ODT/PPTX, EPUB, notebooks, mail) into structured documents;
        // they run in the extraction worker process, never in the indexer's.
        .target(
            name: "TroveExtract", dependencies: ["CLibXML2", "CZlib", "TroveIngest", "TroveSystem", "CTroveProcess"],
            swiftSettings: strict),
        // fork + setrlimit + execve with only async-signal-safe calls between them, and descriptor passing
        // (SCM_RIGHTS): what the extraction worker is started and fed with (Foundation's Process sets no limits).
        .target(name: "CTroveProcess"),
        // GNU libmicrohttpd, the HTTP server under `trove web` (Debian's libmicrohttpd-dev): a parser of outside input
        // that is fuzzed and kept by others, rather than one written by hand.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // FTS5 extensions in C (BM25 with choosable parameters, a CJK tokenizer), registered on every connection.
        .target(name: "CTroveFTS", dependencies: ["CSQLite"], linkerSettings: [.linkedLibrary("m")]),
        .target(
            name: "TroveStore", dependencies: ["CSQLite", "CTroveFTS", "CPostgres", "TroveSystem"], swiftSettings: strict),
        .target(name: "TroveBLAS", dependencies: ["TroveSystem"], swiftSettings: strict),
        // The warm scan's own scoring kernels (AVX-512, AVX2 + FMA), chosen at run time; optimised in debug builds too,
        // so the tests run the code that ships.
        .target(name: "CTroveScan", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(name: "TroveSearch", dependencies: ["CTroveScan", "TroveBLAS", "TroveSystem"], swiftSettings: strict),
        // The encoder's row loops, and the same source files (symbolic links) built for AVX2 and for AVX-512; the
        // best build the CPU runs is chosen at run time.
        // The query-sized matrix product on the model file's own layout (AVX2 + FMA, or AVX-512), and the bf16 product
        // of the indexing batches (AVX-512 BF16), each chosen at run time.
        .target(name: "CTroveGEMM", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(name: "TroveMiniLMKernels", swiftSettings: strict + optimisedInDebug),
        .target(name: "TroveMiniLMKernelsAVX2", swiftSettings: strict + optimisedInDebug + avx2Settings),
        .target(name: "TroveMiniLMKernelsAVX512", swiftSettings: strict + optimisedInDebug + avx512Settings),
        .target(
            name: "TroveMiniLM",
            dependencies: [
                "CTroveGEMM", "TroveBLAS", "TroveSystem", "TroveMiniLMKernels", "TroveMiniLMKernelsAVX2",
                "TroveMiniLMKernelsAVX512",
            ],
            swiftSettings: strict + optimisedInDebug),
        .target(
            name: "TroveKit",
            dependencies: [
                "Ollama", "OpenAICompatible", "TroveIngest", "TroveStore", "TroveBLAS", "TroveSearch", "TroveMiniLM",
                "TroveSystem", "TroveExtract",
            ],
            swiftSettings: strict
        ),
        // Declared options, parsing, help, completions and man page: shared by trove and trove-bench.
        .target(name: "TroveArguments", dependencies: ["TroveSystem"], swiftSettings: strict),
        // The git commit and build date Scripts/install.sh passes in with -Xcc -D.
        .target(name: "CBuildInfo"),
        // Printing hits for a person or a script (text, JSON, colour, escaping, relative paths): used by the CLI and
        // by `trove serve`, which prints for its clients.
        .target(name: "TroveOutput", dependencies: ["TroveKit", "TroveSystem"], swiftSettings: strict),
        // The servers: `trove serve`'s socket protocol and `trove mcp`'s, each a target of its own above TroveKit.
        .target(name: "TroveServe", dependencies: ["TroveKit", "TroveOutput", "TroveSystem"], swiftSettings: strict),
        .target(name: "TroveMCP", dependencies: ["TroveKit", "TroveOutput", "TroveSystem"], swiftSettings: strict),
        // `trove web`: the page, its HTTP API and MCP over Streamable HTTP, on libmicrohttpd; MCP's tools are TroveMCP's.
        .target(
            name: "TroveWeb", dependencies: ["TroveKit", "TroveOutput", "TroveMCP", "TroveSystem", "CMicroHTTPD"],
            swiftSettings: strict),
        // Front ends call TroveKit (Ollama for model management), the servers and the printer.
        .target(
            name: "TroveCLI",
            dependencies: [
                "TroveKit", "TroveOutput", "TroveServe", "TroveMCP", "TroveWeb", "TroveSystem", "Ollama",
                "TroveArguments", "CBuildInfo",
            ],
            swiftSettings: strict),
        // `trove extract-worker` (hidden: started by trove itself) runs TroveExtract's worker before anything else.
        .executableTarget(name: "trove", dependencies: ["TroveCLI", "TroveBLAS", "TroveExtract"], swiftSettings: strict),
        // GUIDE.md's Ollama examples, compiled with everything else so they cannot rot.
        .executableTarget(name: "ollama-examples", dependencies: ["Ollama"], path: "Examples", swiftSettings: strict),
        // Not a product: it depends on test support. `swift run trove-bench` and `swift build --product trove-bench`
        // still reach it, as SwiftPM gives every executable target of the root package an implicit product.
        .executableTarget(
            name: "trove-bench",
            dependencies: [
                "TroveKit", "TroveServe", "Ollama", "TroveBLAS", "TroveSearch", "TroveStore", "TroveTestSupport", "TroveMiniLM",
                "TroveArguments", "CSQLite", "CTroveFTS", "TroveIngest", "TroveExtract",
            ],
            swiftSettings: strict
        ),

        // The fake Ollama server (real HTTP on loopback), temporary folders and a seeded generator: for the tests and
        // for trove-bench, so it lives with the sources.
        .target(name: "TroveTestSupport", swiftSettings: strict),
        // Swift Testing traits the test targets share (running CPU-heavy tests off the cooperative pool).
        .target(name: "TroveTestTraits", swiftSettings: strict),
        .testTarget(name: "TroveSystemTests", dependencies: ["TroveSystem"], swiftSettings: strict),
        .testTarget(name: "TroveArgumentsTests", dependencies: ["TroveArguments"], swiftSettings: strict),
        .testTarget(
            name: "OllamaTests", dependencies: ["Ollama", "TroveTestSupport", "ollama-examples"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "OpenAICompatibleTests", dependencies: ["OpenAICompatible", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TroveIngestTests", dependencies: ["TroveIngest", "TroveSystem", "TroveTestSupport", "TroveTestTraits"],
            exclude: ["Fixtures"],  // read by path (#filePath), with their SOURCES.md
            swiftSettings: strict),
        .testTarget(
            name: "TroveExtractTests",
            // trove: the worker tests start `trove extract-worker`.
            dependencies: [
                "CZlib", "TroveExtract", "TroveIngest", "TroveSystem", "TroveTestSupport", "TroveTestTraits", "trove",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "TroveStoreTests", dependencies: ["TroveStore", "TroveTestSupport", "TroveTestTraits"], swiftSettings: strict),
        .testTarget(name: "TroveSearchTests", dependencies: ["TroveSearch", "TroveBLAS", "TroveTestSupport", "TroveTestTraits"], swiftSettings: strict),
        .testTarget(
            name: "TroveMiniLMTests",
            dependencies: ["TroveMiniLM", "TroveMiniLMKernels", "CTroveGEMM", "TroveBLAS", "TroveTestSupport", "TroveTestTraits"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(
            name: "TroveKitTests",
            dependencies: ["TroveKit", "TroveIngest", "TroveMiniLM", "TroveSystem", "TroveTestSupport", "TroveTestTraits"],
            swiftSettings: strict),
        .testTarget(name: "TroveOutputTests", dependencies: ["TroveOutput"], swiftSettings: strict),
        .testTarget(
            name: "TroveServeTests", dependencies: ["TroveServe", "TroveKit", "TroveOutput", "TroveTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "TroveMCPTests", dependencies: ["TroveMCP", "TroveKit", "TroveSystem", "Ollama", "TroveTestSupport", "TroveTestTraits", "trove"], swiftSettings: strict),
        .testTarget(
            name: "TroveWebTests",
            dependencies: [
                "TroveWeb", "TroveMCP", "TroveKit", "TroveSystem", "Ollama", "OpenAICompatible", "TroveTestSupport",
                "TroveTestTraits", "trove",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TroveCLITests",
            dependencies: ["TroveCLI", "TroveTestSupport", "TroveTestTraits", "trove", "trove-bench", "TroveMiniLM"],
            swiftSettings: strict
        ),
    ]
)
