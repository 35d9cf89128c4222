import TroveBLAS
import Synchronization

/// A linear layer: weight and bias.
struct Dense: @unchecked Sendable {
    // @unchecked: read-only pointers into the mapped file or into `Weights`' copies, which outlive every use.
    let weight: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
}

/// Memory the weights own (the re-laid-out matrices), freed with the model.
final class OwnedFloats: @unchecked Sendable {
    // @unchecked: written once while loading, read-only afterwards.
    let pointer: UnsafeMutablePointer<Float>
    init(count: Int) { pointer = .allocate(capacity: count) }
    deinit { pointer.deallocate() }
}

/// Pointers to every tensor the encoder reads, in two layouts.
///
/// `layers` point into the model file's mapping, in PyTorch's `[out, in]` layout. A small batch (a query) multiplies
/// them in place (`trove_sgemm_nt_avx2`), so a one-query process maps nothing else and copies nothing.
///
/// `relaid()` is the copy a large batch needs: the layers' matrices transposed to `[in, out]`, so every product is a
/// NoTrans·NoTrans `cblas_sgemm` (measured faster than letting OpenBLAS transpose while packing: 3–8% for chunks,
/// BENCHMARKS.md#model-load), with Q, K and V concatenated into one `[384, 1152]` matrix. That copy is 42 MB: it is
/// mapped from `WeightsCache`'s file when one checks out, else made and written there, on the first large batch. The
/// cache's header, read when the model loads, already gives the model file's SHA-256; without a valid header the copy
/// is made at once, since making it hashes the file.
final class Weights: @unchecked Sendable {
    // @unchecked: read-only pointers into `file`'s mapping and into the copy, which this object retains; the copy is
    // made once, under `made`'s lock.

    /// One encoder layer in the file's layout.
    struct Layer {
        let query, key, value, output, intermediate, feedForward: Dense
        let attentionNorm, outputNorm: Dense
    }

    /// One encoder layer's matrices in the re-laid-out copy (biases: the concatenated Q, K, V one, else the file's).
    struct RelaidLayer {
        let qkv, output, intermediate, feedForward: Dense
    }

    /// The copy and where it came from.
    struct Relaid: @unchecked Sendable {
        // @unchecked: see the class.
        /// `OwnedFloats` or `MappedFloats`, kept alive for `layers`.
        let storage: any Sendable
        let layers: [RelaidLayer]
        let load: MiniLM.WeightsLoad
    }

    let file: SafeTensors
    let word, position, tokenType: UnsafePointer<Float>
    let embeddingNorm: Dense
    let layers: [Layer]
    /// The model file's SHA-256 (lowercase hex), when a cache was read or written.
    let sha256: String?

    private let cacheFolder: String?
    private let cachePath: String?
    private let key: WeightsCache.Key
    private let made: Mutex<Relaid?>
    /// Each layer's Q, K and V biases side by side (1152 floats a layer), for the reduced-precision products, whose
    /// copies hold weights only.
    private let qkvBiases: OwnedFloats
    /// The reduced-precision copies made or mapped so far.
    private let reducedCopies = Mutex<[Precision: ReducedWeights]>([:])

    /// The word embeddings: one row per vocabulary entry.
    static let wordTable = "embeddings.word_embeddings.weight"

    /// Floats per layer in the re-laid-out copy: qkv weight 3d·d + bias 3d, output d·d, intermediate d·f, feed-forward f·d.
    static let floatsPerLayer = 3 * MiniLM.dimension * MiniLM.dimension + 3 * MiniLM.dimension
        + MiniLM.dimension * MiniLM.dimension + 2 * MiniLM.dimension * MiniLM.intermediate

    /// Reads and checks `file`'s tensors. With `cacheFolder`, the copies are mapped from files there later, or
    /// written there (the fp32 one now, when its file does not check out).
    init(_ file: SafeTensors, cacheFolder: String?) throws {
        self.file = file
        self.cacheFolder = cacheFolder
        let cachePath = cacheFolder.map { WeightsCache.path(folder: $0, kernel: BLASRuntime.kernel) }
        self.cachePath = cachePath
        let d = MiniLM.dimension
        let f = MiniLM.intermediate
        // Its rows are checked against the vocabulary once both are loaded (`MiniLM.init`).
        word = try file.floats(Self.wordTable, shape: [file.tensors[Self.wordTable]?.shape.first ?? 0, d])
        position = try file.floats("embeddings.position_embeddings.weight", shape: [MiniLM.contextLength, d])
        tokenType = try file.floats("embeddings.token_type_embeddings.weight", shape: [2, d])
        func dense(_ name: String, _ shape: [Int]) throws -> Dense {
            Dense(weight: try file.floats(name + ".weight", shape: shape), bias: try file.floats(name + ".bias", shape: [shape[0]]))
        }
        embeddingNorm = try dense("embeddings.LayerNorm", [d])
        layers = try (0..<MiniLM.layerCount).map { i in
            let p = "encoder.layer.\(i)."
            return Layer(
                query: try dense(p + "attention.self.query", [d, d]),
                key: try dense(p + "attention.self.key", [d, d]),
                value: try dense(p + "attention.self.value", [d, d]),
                output: try dense(p + "attention.output.dense", [d, d]),
                intermediate: try dense(p + "intermediate.dense", [f, d]),
                feedForward: try dense(p + "output.dense", [d, f]),
                attentionNorm: try dense(p + "attention.output.LayerNorm", [d]),
                outputNorm: try dense(p + "output.LayerNorm", [d]))
        }
        let d3 = 3 * d
        qkvBiases = OwnedFloats(count: MiniLM.layerCount * d3)
        for (i, layer) in layers.enumerated() {
            for (part, dense) in [layer.query, layer.key, layer.value].enumerated() {
                (qkvBiases.pointer + i * d3 + part * d).update(from: dense.bias, count: d)
            }
        }
        key = WeightsCache.Key(
            kernel: BLASRuntime.kernel, source: file.identity, floatCount: Self.floatsPerLayer * MiniLM.layerCount)
        if let cachePath, let recorded = WeightsCache.recordedSHA256(cachePath, key: key) {
            sha256 = recorded
            made = Mutex(nil)
        } else {
            let copy = Self.makeCopy(file: file, layers: layers, key: key, cachePath: cachePath)
            sha256 = copy.sha256
            made = Mutex(copy.relaid)
        }
    }

    /// The re-laid-out copy, mapped or made on first use.
    func relaid() -> Relaid {
        made.withLock { made in
            if let made { return made }
            let relaid: Relaid
            if let cachePath, let cached = WeightsCache.map(cachePath, key: key) {
                relaid = Self.relaid(cached.floats, base: cached.floats.floats, layers: layers, load: .mapped)
            } else {
                // The file checked out when the model loaded and no longer does (damaged since): made again.
                relaid = Self.makeCopy(file: file, layers: layers, key: key, cachePath: cachePath).relaid
            }
            made = relaid
            return relaid
        }
    }

    /// Layer `layer`'s Q, K and V biases side by side.
    func qkvBias(layer: Int) -> UnsafePointer<Float> { UnsafePointer(qkvBiases.pointer + layer * 3 * MiniLM.dimension) }

    /// The copy packed for `precision` (not fp32), mapped from its cache file or made now (and written there).
    func reduced(_ precision: Precision) -> ReducedWeights {
        reducedCopies.withLock { copies in
            if let copy = copies[precision] { return copy }
            let key = ReducedWeights.key(precision, source: file.identity)
            let path = cacheFolder.map { WeightsCache.path(folder: $0, kernel: key.kernel) }
            let copy: ReducedWeights
            if let path, let cached = WeightsCache.map(path, key: key) {
                copy = ReducedWeights(
                    precision, storage: cached.floats, base: UnsafeRawPointer(cached.floats.floats), load: .mapped)
            } else {
                let owned = OwnedFloats(count: key.floatCount)
                ReducedWeights.pack(precision, layers, into: UnsafeMutableRawPointer(owned.pointer))
                // The header records the model's hash: known from the fp32 cache (or made when the model loaded).
                var written = false
                if let path, let sha256 {
                    let floats = UnsafeBufferPointer(start: owned.pointer, count: key.floatCount)
                    written = WeightsCache.write(floats, key: key, sha256: sha256, to: path)
                }
                let load: MiniLM.WeightsLoad = written ? .rebuilt : .inMemory
                copy = ReducedWeights(precision, storage: owned, base: UnsafeRawPointer(owned.pointer), load: load)
            }
            copies[precision] = copy
            return copy
        }
    }

    /// Makes the copy in memory and writes it to `cachePath` (hashing the model file for the header).
    private static func makeCopy(file: SafeTensors, layers: [Layer], key: WeightsCache.Key, cachePath: String?)
        -> (relaid: Relaid, sha256: String?)
    {
        let owned = OwnedFloats(count: key.floatCount)
        relayout(layers, into: owned.pointer)
        guard let cachePath else { return (relaid(owned, base: owned.pointer, layers: layers, load: .inMemory), nil) }
        let digest = WeightsCache.sha256(file.bytes)
        let written = WeightsCache.write(
            UnsafeBufferPointer(start: owned.pointer, count: key.floatCount), key: key, sha256: digest, to: cachePath)
        return (relaid(owned, base: owned.pointer, layers: layers, load: written ? .rebuilt : .inMemory), digest)
    }

    /// The copy's layers at `base`, with the file's biases of the layers whose bias the copy does not hold.
    private static func relaid(
        _ storage: any Sendable, base: UnsafePointer<Float>, layers: [Layer], load: MiniLM.WeightsLoad
    ) -> Relaid {
        let base = UnsafeMutablePointer(mutating: base)
        return Relaid(
            storage: storage,
            layers: layers.enumerated().map { i, layer in
                let slots = slots(layer: i, base: base)
                return RelaidLayer(
                    qkv: Dense(weight: slots.qkvWeight, bias: slots.qkvBias),
                    output: Dense(weight: slots.output, bias: layer.output.bias),
                    intermediate: Dense(weight: slots.intermediate, bias: layer.intermediate.bias),
                    feedForward: Dense(weight: slots.feedForward, bias: layer.feedForward.bias))
            }, load: load)
    }

    /// Where layer `layer`'s matrices lie in the re-laid-out copy at `base`; the one definition of its layout.
    private static func slots(layer: Int, base: UnsafeMutablePointer<Float>) -> (
        qkvWeight: UnsafeMutablePointer<Float>, qkvBias: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
        intermediate: UnsafeMutablePointer<Float>, feedForward: UnsafeMutablePointer<Float>
    ) {
        let d = MiniLM.dimension
        let qkvWeight = base + layer * floatsPerLayer
        let qkvBias = qkvWeight + 3 * d * d
        let output = qkvBias + 3 * d
        let intermediate = output + d * d
        return (qkvWeight, qkvBias, output, intermediate, intermediate + d * MiniLM.intermediate)
    }

    /// Fills the copy at `base` from the file's `[out, in]` matrices of each layer.
    private static func relayout(_ layers: [Layer], into base: UnsafeMutablePointer<Float>) {
        let d = MiniLM.dimension
        let f = MiniLM.intermediate
        /// Copies `source` (`[outer, inner]`) transposed into columns `column..<column+outer` of an `[inner, width]` matrix.
        func transpose(_ source: UnsafePointer<Float>, outer: Int, inner: Int, into out: UnsafeMutablePointer<Float>, width: Int, column: Int) {
            for o in 0..<outer {
                let from = source + o * inner
                for i in 0..<inner { out[i * width + column + o] = from[i] }
            }
        }
        for (i, layer) in layers.enumerated() {
            let slots = slots(layer: i, base: base)
            for (index, part) in [layer.query, layer.key, layer.value].enumerated() {
                transpose(part.weight, outer: d, inner: d, into: slots.qkvWeight, width: 3 * d, column: index * d)
                (slots.qkvBias + index * d).update(from: part.bias, count: d)
            }
            transpose(layer.output.weight, outer: d, inner: d, into: slots.output, width: d, column: 0)
            transpose(layer.intermediate.weight, outer: f, inner: d, into: slots.intermediate, width: f, column: 0)
            transpose(layer.feedForward.weight, outer: d, inner: f, into: slots.feedForward, width: d, column: 0)
        }
    }
}
