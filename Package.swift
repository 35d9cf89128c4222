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

/// Code generation for the AVX-512 build of the encoder's loops (the subsets `CPU.avx512` checks before calling it).
/// Where unsafe flags are refused (a versioned dependency) it builds for baseline x86-64: slower, still correct.
#if arch(x86_64)
let avx512Settings: [SwiftSetting] =
    Context.packageDirectory.contains("/.build/checkouts/")
    ? []
    : [.unsafeFlags(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].flatMap { ["-Xcc", "-m" + $0] })]
#else
let avx512Settings: [SwiftSetting] = []
#endif

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
        .target(name: "Ollama", swiftSettings: strict),
        .target(name: "TroveIngest", swiftSettings: strict),
        .target(name: "TroveStore", dependencies: ["CSQLite"], swiftSettings: strict),
        .target(name: "TroveBLAS", swiftSettings: strict),
        .target(name: "TroveSearch", dependencies: ["TroveBLAS"], swiftSettings: strict),
        // The encoder's row loops, and the same source files (symbolic links) built for AVX-512, chosen at run time.
        .target(name: "TroveMiniLMKernels", swiftSettings: strict + miniLMSettings),
        .target(name: "TroveMiniLMKernelsAVX512", swiftSettings: strict + miniLMSettings + avx512Settings),
        .target(
            name: "TroveMiniLM", dependencies: ["TroveBLAS", "TroveMiniLMKernels", "TroveMiniLMKernelsAVX512"],
            swiftSettings: strict + miniLMSettings),
        .target(
            name: "TroveKit",
            dependencies: ["Ollama", "TroveIngest", "TroveStore", "TroveBLAS", "TroveSearch", "TroveMiniLM"],
            swiftSettings: strict
        ),
        .target(name: "TroveCLI", dependencies: ["TroveKit", "TroveStore", "TroveIngest", "Ollama", "TroveBLAS", "TroveMiniLM"], swiftSettings: strict),
        .executableTarget(name: "trove", dependencies: ["TroveCLI", "TroveBLAS"], swiftSettings: strict),
        // The README's Ollama examples, compiled with everything else so they cannot rot.
        .executableTarget(name: "ollama-examples", dependencies: ["Ollama"], path: "Examples", swiftSettings: strict),
        .executableTarget(
            name: "trove-bench",
            dependencies: ["TroveKit", "TroveBLAS", "TroveSearch", "TroveStore", "TroveTestSupport", "TroveMiniLM"],
            swiftSettings: strict
        ),

        .target(name: "TroveTestSupport", path: "Tests/TroveTestSupport", swiftSettings: strict),
        .testTarget(
            name: "OllamaTests", dependencies: ["Ollama", "TroveTestSupport", "ollama-examples"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "TroveIngestTests", dependencies: ["TroveIngest", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(name: "TroveStoreTests", dependencies: ["TroveStore", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(name: "TroveSearchTests", dependencies: ["TroveSearch", "TroveBLAS", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TroveMiniLMTests",
            dependencies: ["TroveMiniLM", "TroveMiniLMKernels", "TroveMiniLMKernelsAVX512", "TroveBLAS"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(name: "TroveKitTests", dependencies: ["TroveKit", "TroveTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TroveCLITests",
            dependencies: ["TroveCLI", "TroveTestSupport", "trove", "TroveMiniLM"],
            swiftSettings: strict
        ),
    ]
)
