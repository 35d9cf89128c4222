// swift-tools-version: 6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode comes from the tools version.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// The encoder is optimised even in our debug builds: unoptimised SIMD and loops make it ~50x slower, too slow for
/// the semantic tests. SwiftPM refuses unsafe flags in a package used as a versioned dependency, so the flag is only
/// set when this package is built as the root, not from another package's `.build/checkouts`.
let miniLMSettings: [SwiftSetting] =
    Context.packageDirectory.contains("/.build/checkouts/")
    ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// The same for the encoder's C kernels: at -O0 its debug-build throughput halves (9.8 vs 19.1 chunks/s).
let miniLMCSettings: [CSetting] =
    Context.packageDirectory.contains("/.build/checkouts/")
    ? [] : [.unsafeFlags(["-O2"], .when(configuration: .debug))]

let package = Package(
    name: "Trove",
    products: [
        .library(name: "TroveKit", targets: ["TroveKit"]),
        .library(name: "Ollama", targets: ["Ollama"]),
        .executable(name: "trove", targets: ["trove"]),
        .executable(name: "trove-bench", targets: ["trove-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .target(name: "Ollama", swiftSettings: strict),
        .target(name: "TroveIngest", swiftSettings: strict),
        .target(name: "TroveStore", dependencies: ["CSQLite"], swiftSettings: strict),
        .target(name: "TroveSearch", dependencies: ["COpenBLAS"], swiftSettings: strict),
        // AVX-512 softmax and GELU, each function compiled for that target alone and picked at run time.
        .target(name: "CMiniLMKernels", cSettings: miniLMCSettings),
        .target(
            name: "TroveMiniLM", dependencies: ["COpenBLAS", "CMiniLMKernels"], swiftSettings: strict + miniLMSettings),
        .target(
            name: "TroveKit",
            dependencies: ["Ollama", "TroveIngest", "TroveStore", "TroveSearch", "TroveMiniLM"],
            swiftSettings: strict
        ),
        .target(name: "TroveCLI", dependencies: ["TroveKit", "TroveStore", "TroveIngest", "Ollama", "TroveMiniLM"], swiftSettings: strict),
        .executableTarget(name: "trove", dependencies: ["TroveCLI"], swiftSettings: strict),
        // The README's Ollama examples, compiled with everything else so they cannot rot.
        .executableTarget(name: "ollama-examples", dependencies: ["Ollama"], path: "Examples", swiftSettings: strict),
        .executableTarget(
            name: "trove-bench",
            dependencies: ["TroveKit", "TroveSearch", "TroveStore", "TroveTestSupport", "TroveMiniLM"],
            swiftSettings: strict
        ),

        .target(name: "TroveTestSupport", path: "Tests/TroveTestSupport", swiftSettings: strict),
        .testTarget(
            name: "OllamaTests", dependencies: ["Ollama", "TroveTestSupport", "ollama-examples"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "TroveIngestTests", dependencies: ["TroveIngest", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(name: "TroveStoreTests", dependencies: ["TroveStore", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(name: "TroveSearchTests", dependencies: ["TroveSearch", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TroveMiniLMTests", dependencies: ["TroveMiniLM", "CMiniLMKernels"], resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "TroveKitTests", dependencies: ["TroveKit", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TroveCLITests",
            dependencies: ["TroveCLI", "TroveTestSupport", "trove", "TroveMiniLM"],
            swiftSettings: strict
        ),
    ]
)
