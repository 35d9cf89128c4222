#!/usr/bin/env bash
# Shows that another package can depend on Trove and use its libraries: builds and runs a small package that
# imports Ollama and TroveKit, twice — depending on this checkout by path, and by version (a throw-away clone of
# HEAD tagged 0.1.0, fetched as a git URL, the way a published release is). The versioned build also uses
# --scratch-path, which must work too. Takes a few minutes (the dependency is built twice); needs nothing online.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The clone is tagged, never this repository.
git clone -q "$root" "$work/trove"
git -C "$work/trove" tag 0.1.0

write_package() {  # folder, dependency line
    mkdir -p "$1/Sources/uses-trove"
    cat > "$1/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "uses-trove",
    dependencies: [$2],
    targets: [
        .executableTarget(
            name: "uses-trove",
            dependencies: [.product(name: "TroveKit", package: "trove"), .product(name: "Ollama", package: "trove")])
    ]
)
MANIFEST
    cat > "$1/Sources/uses-trove/main.swift" <<'SWIFT'
import Ollama
import TroveKit

/// An embedder of the package's own: TroveKit's protocol is open to other implementations.
struct LetterCounts: Embedder {
    var model: String { "letter-counts" }
    var kind: String { "custom" }
    func inspect() async throws -> EmbedderInfo { EmbedderInfo(dimension: 26, contextLength: nil, digest: nil) }
    func embed(_ texts: [String]) async throws -> [[Float]] {
        texts.map { text in
            var counts = [Float](repeating: 0, count: 26)
            for scalar in text.lowercased().unicodeScalars where ("a"..."z").contains(scalar) {
                counts[Int(scalar.value - 97)] += 1
            }
            return counts
        }
    }
}

let host = try OllamaHost.parse("gpu-box:11500", source: "example")
let model = try Model.ID(parsing: "nomic-embed-text:v1.5")
print("Ollama: \(host.absoluteString), model \(model)")
// Nothing listens on port 9: the typed error says what to do.
let client = OllamaClient(baseURL: try OllamaHost.parse("127.0.0.1:9", source: "example"))
do {
    _ = try await client.version()
    print("unexpected: something answered on port 9")
} catch let error as OllamaError {
    print("OllamaError.\(error.kind): \(error)")
}
let vectors = try await LetterCounts().embed(["abc", "zz"])
print("TroveKit: custom embedder gave \(vectors.map(\.count)) floats; query prefix for nomic-embed-text: "
    + "'\(EmbeddingPrefixes.forModel("nomic-embed-text").query)'")
SWIFT
}

write_package "$work/by-path" ".package(name: \"trove\", path: \"$root\")"
write_package "$work/by-version" ".package(url: \"file://$work/trove\", from: \"0.1.0\")"

echo "== by path" >&2
swift build --package-path "$work/by-path" >&2
swift run --package-path "$work/by-path" uses-trove
echo "== by version (0.1.0 from a git URL), with --scratch-path" >&2
swift build --package-path "$work/by-version" --scratch-path "$work/scratch" >&2
swift run --package-path "$work/by-version" --scratch-path "$work/scratch" uses-trove
echo "both builds ran" >&2
