import TroveBLAS
import Foundation

/// all-MiniLM-L6-v2 (sentence-transformers): the 6-layer BERT encoder, mean pooling, L2 normalisation.
///
/// Embeddings and norms stay in the memory-mapped safetensors file; the layers' matrices are used transposed and with
/// Q, K, V concatenated (see `Weights`), mapped from a cache file beside the model (`WeightsCache`). Sequences of a
/// batch are packed into one matrix (no padding): token-wise layers are one `cblas_sgemm` over all tokens, attention
/// runs per sequence and head.
/// Several sequences run in parallel, each worker calling single-threaded OpenBLAS.
public final class MiniLM: Sendable {
    /// Vector length.
    public static let dimension = 384
    /// Tokens the model reads at most (position embeddings), `[CLS]` and `[SEP]` included.
    public static let contextLength = 512
    /// The files a model folder holds.
    public static let files = ["model.safetensors", "vocab.txt", "tokenizer.json"]

    static let layerCount = 6
    static let headCount = 12
    static let headSize = 32
    static let intermediate = 1536
    static let epsilon: Float = 1e-12
    /// Feed-forward rows per block: 128 repacked the weights too often (~10% slower); 512 rows is 3 MB of activations.
    static let feedForwardRows = 512

    /// The folder the files came from.
    public let folder: String
    public let tokenizer: WordPieceTokenizer
    private let weights: Weights

    /// The build of the row loops (layer norm, softmax, GELU) this model runs: by default the widest this CPU runs.
    public let rowKernels: Kernels.Build

    /// How the weights were loaded this time.
    public enum WeightsLoad: String, Sendable {
        /// The re-laid-out matrices were mapped from the cache file beside the model.
        case mapped
        /// They were re-laid out and written to a new cache file (there was none, or it did not check out).
        case rebuilt
        /// They were re-laid out in memory: no cache wanted, or the folder cannot be written.
        case inMemory = "in memory"
    }

    /// Where the re-laid-out weights came from.
    public var weightsLoad: WeightsLoad { weights.load }
    /// SHA-256 of `model.safetensors` (lowercase hex), as recorded in or for the weights cache; nil without one.
    public var modelSHA256: String? { weights.sha256 }

    /// Loads `model.safetensors` and `vocab.txt` from `folder`; `rowKernels` other than the default is for benchmarks.
    /// With `cachesWeights` the re-laid-out matrices are mapped from a file beside the model (`WeightsCache`), written
    /// there first when missing or when it does not check out; without, they are re-laid out in memory.
    public init(folder: String, rowKernels: Kernels.Build = Kernels.build, cachesWeights: Bool = true) throws {
        precondition(rowKernels.isSupported, "this CPU cannot run the \(rowKernels.rawValue) row loops")
        try BLAS.load()  // the encoder is BLAS calls: without OpenBLAS, an error now rather than a stop later
        self.folder = folder
        self.rowKernels = rowKernels
        for file in Self.files where !FileManager.default.fileExists(atPath: folder + "/" + file) {
            throw MiniLMError(
                .missingFile, "the built-in model is not installed: \(folder)/\(file) is missing — run Scripts/install-model.sh")
        }
        tokenizer = try WordPieceTokenizer(vocabularyFile: folder + "/vocab.txt")
        weights = try Weights(
            SafeTensors(path: folder + "/model.safetensors"), vocabularySize: tokenizer.vocabularySize,
            cachePath: cachesWeights ? WeightsCache.path(folder: folder, kernel: BLASRuntime.kernel) : nil)
    }


    /// Worker threads a run uses by default: one per online CPU.
    public static var defaultThreads: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// One unit-length vector per text, in order; texts longer than the context are truncated.
    public func embed(_ texts: [String], threads: Int = MiniLM.defaultThreads) -> [[Float]] {
        // The tokenizer's ids are in the vocabulary and its sequences within the context: no check needed.
        run(tokens: texts.map { tokenizer.encode($0, maxLength: Self.contextLength) }, threads: threads)
    }

    /// Embeds token ids that already carry `[CLS]`/`[SEP]`; each sequence must hold 1…`contextLength` ids, each
    /// below the vocabulary size, since the encoder indexes its weight tables with them.
    public func embed(tokens: [[Int32]], threads: Int = MiniLM.defaultThreads, normalize: Bool = true) throws
        -> [[Float]]
    {
        let vocabulary = tokenizer.vocabularySize
        for (index, sequence) in tokens.enumerated() {
            guard (1...Self.contextLength).contains(sequence.count) else {
                throw MiniLMError(
                    .badInput,
                    "token sequence \(index) has \(sequence.count) ids, expected 1 to \(Self.contextLength)")
            }
            if let bad = sequence.first(where: { $0 < 0 || Int($0) >= vocabulary }) {
                throw MiniLMError(
                    .badInput, "token sequence \(index) holds id \(bad), outside the vocabulary of \(vocabulary)")
            }
        }
        return run(tokens: tokens, threads: threads, normalize: normalize)
    }

    /// `embed(tokens:)` without the checks, for ids that came from the tokenizer.
    private func run(tokens: [[Int32]], threads: Int, normalize: Bool = true) -> [[Float]] {
        guard !tokens.isEmpty else { return [] }
        let workers = max(1, min(threads, tokens.count))
        // Longest first, dealt round-robin: every worker gets about the same number of tokens.
        let order = tokens.indices.sorted { tokens[$0].count > tokens[$1].count }
        var dealt = [[Int]](repeating: [], count: workers)
        for (position, index) in order.enumerated() { dealt[position % workers].append(index) }
        let groups = dealt
        let results = Results(count: tokens.count)
        // Every worker calls single-threaded OpenBLAS; the count is process-wide, so runs take turns.
        BLASRuntime.withThreadCount(1) {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var start = 0
                let group = groups[worker]
                while start < group.count {
                    // Batches of up to 4096 tokens keep every buffer in a few MB.
                    var end = start
                    var total = 0
                    while end < group.count, end == start || total + tokens[group[end]].count <= 4096 {
                        total += tokens[group[end]].count
                        end += 1
                    }
                    let batch = Array(group[start..<end])
                    let vectors = forward(batch.map { tokens[$0] }, normalize: normalize)
                    for (index, vector) in zip(batch, vectors) { results.set(index, vector) }
                    start = end
                }
            }
        }
        return results.values
    }

    /// Mean-pooled vectors of one packed batch, on the calling thread.
    func forward(_ batch: [[Int32]], normalize: Bool) -> [[Float]] {
        let d = Self.dimension
        let d3 = 3 * d
        let lengths = batch.map(\.count)
        let total = lengths.reduce(0, +)
        let longest = lengths.max() ?? 0
        let h = Buffer(total * d)
        let qkv = Buffer(total * d3)
        let attention = Buffer(total * d)
        let context = Buffer(total * d)
        let scores = Buffer(longest * longest)
        let inverseSums = Buffer(longest)
        let middle = Buffer(Self.feedForwardRows * Self.intermediate)
        defer { [h, qkv, attention, context, scores, inverseSums, middle].forEach { $0.free() } }

        // Embeddings: word + position + token type 0, then layer norm.
        var row = 0
        for sequence in batch {
            for (position, id) in sequence.enumerated() {
                let out = h.pointer + row * d
                let word = weights.word + Int(id) * d
                let place = weights.position + position * d
                for j in 0..<d { out[j] = word[j] + place[j] + weights.tokenType[j] }
                row += 1
            }
        }
        Kernels.layerNorm(
            h.pointer, rows: total, bias: nil, residual: nil, weight: weights.embeddingNorm.weight,
            shift: weights.embeddingNorm.bias, epsilon: Self.epsilon, build: rowKernels)

        // 1/√32, times log₂e: the softmax then takes powers of 2, which are cheaper than e^x.
        let scale = 1.442_695_04 / Float(Self.headSize).squareRoot()
        for layer in weights.layers {
            // Q, K and V in one product: row t of qkv is [q_t | k_t | v_t].
            Kernels.fillRows(qkv.pointer, rows: total, with: layer.qkv.bias, width: d3)
            gemm(h.pointer, rows: total, inner: d, layer.qkv.weight, outer: d3, into: qkv.pointer, beta: 1)
            var offset = 0
            for n in lengths {
                for head in 0..<Self.headCount {
                    let column = offset * d3 + head * Self.headSize
                    BLAS.sgemm(
                        CblasRowMajor, CblasNoTrans, CblasTrans, Int32(n), Int32(n), Int32(Self.headSize), scale,
                        qkv.pointer + column, Int32(d3), qkv.pointer + column + d, Int32(d3), 0, scores.pointer,
                        Int32(n))
                    Kernels.softmaxRows(scores.pointer, rows: n, columns: n, stride: n, inverseSums: inverseSums.pointer,
                        build: rowKernels)
                    let out = context.pointer + offset * d + head * Self.headSize
                    BLAS.sgemm(
                        CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(n), Int32(Self.headSize), Int32(n), 1,
                        scores.pointer, Int32(n), qkv.pointer + column + 2 * d, Int32(d3), 0, out, Int32(d))
                    Kernels.scaleHeadRows(out, rows: n, stride: d, factors: inverseSums.pointer)
                }
                offset += n
            }
            // Output projection, then bias + residual + norm in one pass.
            gemm(context.pointer, rows: total, inner: d, layer.output.weight, outer: d, into: attention.pointer, beta: 0)
            Kernels.layerNorm(
                attention.pointer, rows: total, bias: layer.output.bias, residual: h.pointer,
                weight: layer.attentionNorm.weight, shift: layer.attentionNorm.bias, epsilon: Self.epsilon, build: rowKernels)
            // Feed-forward in row blocks; the result plus residual lands in h.
            var start = 0
            while start < total {
                let rows = min(Self.feedForwardRows, total - start)
                let block = attention.pointer + start * d
                gemm(block, rows: rows, inner: d, layer.intermediate.weight, outer: Self.intermediate, into: middle.pointer, beta: 0)
                Kernels.biasGELU(middle.pointer, rows: rows, width: Self.intermediate, bias: layer.intermediate.bias, build: rowKernels)
                let out = h.pointer + start * d
                gemm(middle.pointer, rows: rows, inner: Self.intermediate, layer.feedForward.weight, outer: d, into: out, beta: 0)
                Kernels.layerNorm(
                    out, rows: rows, bias: layer.feedForward.bias, residual: block, weight: layer.outputNorm.weight,
                    shift: layer.outputNorm.bias, epsilon: Self.epsilon, build: rowKernels)
                start += rows
            }
        }

        // Mean pooling over each sequence's tokens, then L2 normalisation.
        var vectors: [[Float]] = []
        vectors.reserveCapacity(batch.count)
        var offset = 0
        for n in lengths {
            var sum = [Float](repeating: 0, count: d)
            for r in offset..<(offset + n) {
                let source = h.pointer + r * d
                for j in 0..<d { sum[j] += source[j] }
            }
            offset += n
            var scale = 1 / Float(max(n, 1))
            if normalize {
                let norm = (sum.reduce(0) { $0 + $1 * $1 }).squareRoot() * scale
                scale /= max(norm, 1e-12)
            }
            vectors.append(sum.map { $0 * scale })
        }
        return vectors
    }

    /// `out = x · W + beta · out` where W is the pre-transposed `[inner, outer]` layout.
    private func gemm(
        _ x: UnsafePointer<Float>, rows: Int, inner: Int, _ weight: UnsafePointer<Float>, outer: Int,
        into out: UnsafeMutablePointer<Float>, beta: Float
    ) {
        BLAS.sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(outer), Int32(inner), 1, x, Int32(inner),
            weight, Int32(outer), beta, out, Int32(outer))
    }
}

/// Scratch memory of one forward pass.
private struct Buffer {
    let pointer: UnsafeMutablePointer<Float>
    init(_ count: Int) { pointer = .allocate(capacity: max(count, 1)) }
    func free() { pointer.deallocate() }
}

/// Result slots written by parallel workers, each index by exactly one worker.
private final class Results: @unchecked Sendable {
    // @unchecked: workers write disjoint indices; read only after concurrentPerform returns.
    private var storage: UnsafeMutableBufferPointer<[Float]>
    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: [])
    }
    deinit {
        storage.deinitialize()
        storage.deallocate()
    }
    func set(_ index: Int, _ vector: [Float]) { storage[index] = vector }
    var values: [[Float]] { Array(storage) }
}

/// A linear layer: weight and bias.
struct Dense: @unchecked Sendable {
    // @unchecked: read-only pointers into the mapped file or into `Weights.owned`, which outlive every use.
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

/// Pointers to every tensor the encoder reads; the mapping and the re-laid-out copies are kept alive alongside.
///
/// The matrices of the six layers are used transposed from PyTorch's `[out, in]` to `[in, out]`, so every product is
/// a NoTrans·NoTrans `cblas_sgemm` (measured faster than letting OpenBLAS transpose while packing: 3–8% for chunks,
/// ~17% for a one-query embedding, BENCHMARKS.md), and Q, K and V are concatenated into one `[384, 1152]` matrix: one
/// larger product instead of three. That copy is 42 MB: it is mapped from `WeightsCache`'s file when one checks out,
/// else made here (and written there). The embeddings and the norms stay in the model file's mapping.
struct Weights: @unchecked Sendable {
    // @unchecked: read-only pointers into `file`'s mapping and into `storage`, which this value retains.
    struct Layer {
        let qkv, output, intermediate, feedForward: Dense
        let attentionNorm, outputNorm: Dense
    }

    let file: SafeTensors
    /// The re-laid-out matrices: `OwnedFloats` or `MappedFloats`.
    let storage: any Sendable
    let word, position, tokenType: UnsafePointer<Float>
    let embeddingNorm: Dense
    let layers: [Layer]
    /// Where the re-laid-out matrices came from.
    let load: MiniLM.WeightsLoad
    /// The model file's SHA-256 (lowercase hex), when a cache was read or written.
    let sha256: String?

    /// Floats per layer in the re-laid-out copy: qkv weight 3d·d + bias 3d, output d·d, intermediate d·f, feed-forward f·d.
    static let floatsPerLayer = 3 * MiniLM.dimension * MiniLM.dimension + 3 * MiniLM.dimension
        + MiniLM.dimension * MiniLM.dimension + 2 * MiniLM.dimension * MiniLM.intermediate

    /// Reads `file`'s tensors; with `cachePath`, maps the re-laid-out matrices from there, or writes them there.
    init(_ file: SafeTensors, vocabularySize: Int, cachePath: String?) throws {
        self.file = file
        let d = MiniLM.dimension
        let f = MiniLM.intermediate
        word = try file.floats("embeddings.word_embeddings.weight", shape: [vocabularySize, d])
        position = try file.floats("embeddings.position_embeddings.weight", shape: [MiniLM.contextLength, d])
        tokenType = try file.floats("embeddings.token_type_embeddings.weight", shape: [2, d])
        func dense(_ name: String, _ shape: [Int]) throws -> Dense {
            Dense(weight: try file.floats(name + ".weight", shape: shape), bias: try file.floats(name + ".bias", shape: [shape[0]]))
        }
        embeddingNorm = try dense("embeddings.LayerNorm", [d])
        // The file's tensors, checked even when the copy comes from the cache (their biases and norms are used).
        struct Source {
            let parts: [Dense]
            let output, intermediate, feedForward, attentionNorm, outputNorm: Dense
        }
        let sources = try (0..<MiniLM.layerCount).map { i in
            let p = "encoder.layer.\(i)."
            return Source(
                parts: try ["query", "key", "value"].map { try dense(p + "attention.self." + $0, [d, d]) },
                output: try dense(p + "attention.output.dense", [d, d]),
                intermediate: try dense(p + "intermediate.dense", [f, d]),
                feedForward: try dense(p + "output.dense", [d, f]),
                attentionNorm: try dense(p + "attention.output.LayerNorm", [d]),
                outputNorm: try dense(p + "output.LayerNorm", [d]))
        }
        let count = Self.floatsPerLayer * MiniLM.layerCount
        let key = WeightsCache.Key(kernel: BLASRuntime.kernel, source: file.identity, floatCount: count)
        let base: UnsafeMutablePointer<Float>
        if let cachePath, let cached = WeightsCache.map(cachePath, key: key) {
            storage = cached.floats
            base = UnsafeMutablePointer(mutating: cached.floats.floats)
            load = .mapped
            sha256 = cached.sha256
        } else {
            let owned = OwnedFloats(count: count)
            storage = owned
            base = owned.pointer
            Self.relayout(sources.map { ($0.parts, $0.output, $0.intermediate, $0.feedForward) }, into: base)
            if let cachePath {
                let digest = WeightsCache.sha256(file.bytes)
                let written = WeightsCache.write(
                    UnsafeBufferPointer(start: base, count: count), key: key, sha256: digest, to: cachePath)
                load = written ? .rebuilt : .inMemory
                sha256 = digest
            } else {
                load = .inMemory
                sha256 = nil
            }
        }
        layers = sources.enumerated().map { i, source in
            let slots = Self.slots(layer: i, base: base)
            return Layer(
                qkv: Dense(weight: slots.qkvWeight, bias: slots.qkvBias),
                output: Dense(weight: slots.output, bias: source.output.bias),
                intermediate: Dense(weight: slots.intermediate, bias: source.intermediate.bias),
                feedForward: Dense(weight: slots.feedForward, bias: source.feedForward.bias),
                attentionNorm: source.attentionNorm, outputNorm: source.outputNorm)
        }
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
    private static func relayout(
        _ layers: [(qkv: [Dense], output: Dense, intermediate: Dense, feedForward: Dense)],
        into base: UnsafeMutablePointer<Float>
    ) {
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
            for (index, part) in layer.qkv.enumerated() {
                transpose(part.weight, outer: d, inner: d, into: slots.qkvWeight, width: 3 * d, column: index * d)
                (slots.qkvBias + index * d).update(from: part.bias, count: d)
            }
            transpose(layer.output.weight, outer: d, inner: d, into: slots.output, width: d, column: 0)
            transpose(layer.intermediate.weight, outer: f, inner: d, into: slots.intermediate, width: f, column: 0)
            transpose(layer.feedForward.weight, outer: d, inner: f, into: slots.feedForward, width: d, column: 0)
        }
    }
}
