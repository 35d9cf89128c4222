@preconcurrency import COpenBLAS
import Foundation
import Synchronization

/// all-MiniLM-L6-v2 (sentence-transformers): the 6-layer BERT encoder, mean pooling, L2 normalisation.
///
/// Weights stay in the memory-mapped safetensors file. Sequences of a batch are packed into one matrix (no
/// padding): token-wise layers are one `cblas_sgemm` over all tokens, attention runs per sequence and head.
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
    // Serialises runs: OpenBLAS's thread count is process-wide and is set to 1 for the duration of a run.
    private let running = Mutex(())

    /// Loads `model.safetensors` and `vocab.txt` from `folder`.
    public init(folder: String) throws {
        self.folder = folder
        for file in Self.files where !FileManager.default.fileExists(atPath: folder + "/" + file) {
            throw MiniLMError(
                .missingFile, "the built-in model is not installed: \(folder)/\(file) is missing — run Scripts/install-model.sh")
        }
        tokenizer = try WordPieceTokenizer(vocabularyFile: folder + "/vocab.txt")
        weights = try Weights(SafeTensors(path: folder + "/model.safetensors"), vocabularySize: tokenizer.vocabularySize)
    }

    /// Worker threads a run uses by default: one per online CPU.
    public static var defaultThreads: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// One unit-length vector per text, in order; texts longer than the context are truncated.
    public func embed(_ texts: [String], threads: Int = MiniLM.defaultThreads) -> [[Float]] {
        embed(tokens: texts.map { tokenizer.encode($0, maxLength: Self.contextLength) }, threads: threads)
    }

    /// Embeds token ids that already carry `[CLS]`/`[SEP]` (at most `contextLength` each).
    public func embed(tokens: [[Int32]], threads: Int = MiniLM.defaultThreads, normalize: Bool = true) -> [[Float]] {
        guard !tokens.isEmpty else { return [] }
        let workers = max(1, min(threads, tokens.count))
        // Longest first, dealt round-robin: every worker gets about the same number of tokens.
        let order = tokens.indices.sorted { tokens[$0].count > tokens[$1].count }
        var dealt = [[Int]](repeating: [], count: workers)
        for (position, index) in order.enumerated() { dealt[position % workers].append(index) }
        let groups = dealt
        let results = Results(count: tokens.count)
        running.withLock { _ in
            let previous = openblas_get_num_threads()
            openblas_set_num_threads(1)
            defer { openblas_set_num_threads(previous) }
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
        let lengths = batch.map(\.count)
        let total = lengths.reduce(0, +)
        let longest = lengths.max() ?? 0
        let h = Buffer(total * d)
        let q = Buffer(total * d)
        let k = Buffer(total * d)
        let v = Buffer(total * d)
        let context = Buffer(total * d)
        let scores = Buffer(longest * longest)
        let middle = Buffer(Self.feedForwardRows * Self.intermediate)
        defer { [h, q, k, v, context, scores, middle].forEach { $0.free() } }

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
        layerNorm(h.pointer, rows: total, bias: nil, weight: weights.embeddingNorm.weight, shift: weights.embeddingNorm.bias)

        let scale = 1 / Float(Self.headSize).squareRoot()
        for layer in weights.layers {
            linear(h.pointer, rows: total, layer.query, into: q.pointer)
            linear(h.pointer, rows: total, layer.key, into: k.pointer)
            linear(h.pointer, rows: total, layer.value, into: v.pointer)
            var offset = 0
            for n in lengths {
                for head in 0..<Self.headCount {
                    let column = offset * d + head * Self.headSize
                    cblas_sgemm(
                        CblasRowMajor, CblasNoTrans, CblasTrans, Int32(n), Int32(n), Int32(Self.headSize), scale,
                        q.pointer + column, Int32(d), k.pointer + column, Int32(d), 0, scores.pointer, Int32(n))
                    softmaxRows(scores.pointer, rows: n, columns: n)
                    cblas_sgemm(
                        CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(n), Int32(Self.headSize), Int32(n), 1,
                        scores.pointer, Int32(n), v.pointer + column, Int32(d), 0, context.pointer + column, Int32(d))
                }
                offset += n
            }
            // Output projection plus residual, then norm: q is free now and takes the sum.
            q.pointer.update(from: h.pointer, count: total * d)
            gemm(context.pointer, rows: total, inner: d, layer.output.weight, outer: d, into: q.pointer)
            layerNorm(q.pointer, rows: total, bias: layer.output.bias, weight: layer.attentionNorm.weight, shift: layer.attentionNorm.bias)
            // Feed-forward in row blocks; the result plus residual lands in h.
            var start = 0
            while start < total {
                let rows = min(Self.feedForwardRows, total - start)
                let block = q.pointer + start * d
                fillRows(middle.pointer, rows: rows, with: layer.intermediate.bias, width: Self.intermediate)
                gemm(block, rows: rows, inner: d, layer.intermediate.weight, outer: Self.intermediate, into: middle.pointer)
                FastMath.geluInPlace(middle.pointer, count: rows * Self.intermediate)
                let out = h.pointer + start * d
                out.update(from: block, count: rows * d)
                gemm(middle.pointer, rows: rows, inner: Self.intermediate, layer.feedForward.weight, outer: d, into: out)
                layerNorm(out, rows: rows, bias: layer.feedForward.bias, weight: layer.outputNorm.weight, shift: layer.outputNorm.bias)
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

    /// `out = x · Wᵀ + b` where W is PyTorch's `[outer, inner]` layout.
    private func linear(_ x: UnsafePointer<Float>, rows: Int, _ dense: Dense, into out: UnsafeMutablePointer<Float>) {
        fillRows(out, rows: rows, with: dense.bias, width: Self.dimension)
        gemm(x, rows: rows, inner: Self.dimension, dense.weight, outer: Self.dimension, into: out)
    }

    /// `out += x · Wᵀ`.
    private func gemm(
        _ x: UnsafePointer<Float>, rows: Int, inner: Int, _ weight: UnsafePointer<Float>, outer: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(outer), Int32(inner), 1, x, Int32(inner),
            weight, Int32(inner), 1, out, Int32(outer))
    }

    private func fillRows(_ out: UnsafeMutablePointer<Float>, rows: Int, with row: UnsafePointer<Float>, width: Int) {
        for r in 0..<rows { (out + r * width).update(from: row, count: width) }
    }

    private func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        for r in 0..<rows {
            let row = x + r * columns
            var largest = -Float.infinity
            for j in 0..<columns { largest = max(largest, row[j]) }
            for j in 0..<columns { row[j] -= largest }
            FastMath.expInPlace(row, count: columns)
            var sum: Float = 0
            for j in 0..<columns { sum += row[j] }
            let inverse = 1 / sum
            for j in 0..<columns { row[j] *= inverse }
        }
    }

    /// Adds `bias` (if any) to each row, then normalises it: (x − mean) / √(var + ε) · weight + shift.
    private func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?, weight: UnsafePointer<Float>,
        shift: UnsafePointer<Float>
    ) {
        let d = Self.dimension
        for r in 0..<rows {
            let row = x + r * d
            if let bias { for j in 0..<d { row[j] += bias[j] } }
            var mean: Float = 0
            for j in 0..<d { mean += row[j] }
            mean /= Float(d)
            var variance: Float = 0
            for j in 0..<d {
                row[j] -= mean
                variance += row[j] * row[j]
            }
            let inverse = 1 / (variance / Float(d) + Self.epsilon).squareRoot()
            for j in 0..<d { row[j] = row[j] * inverse * weight[j] + shift[j] }
        }
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

/// A linear layer: weight `[out, in]` and bias `[out]`, pointing into the mapped file.
struct Dense: @unchecked Sendable {
    // @unchecked: pointers into a read-only mapping that outlives every use.
    let weight: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
}

/// Pointers to every tensor the encoder reads; the mapping is kept alive alongside.
struct Weights: @unchecked Sendable {
    // @unchecked: read-only pointers into `file`'s mapping, which this value retains.
    struct Layer {
        let query, key, value, output, intermediate, feedForward: Dense
        let attentionNorm, outputNorm: Dense
    }

    let file: SafeTensors
    let word, position, tokenType: UnsafePointer<Float>
    let embeddingNorm: Dense
    let layers: [Layer]

    init(_ file: SafeTensors, vocabularySize: Int) throws {
        self.file = file
        let d = MiniLM.dimension
        word = try file.floats("embeddings.word_embeddings.weight", shape: [vocabularySize, d])
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
                intermediate: try dense(p + "intermediate.dense", [MiniLM.intermediate, d]),
                feedForward: try dense(p + "output.dense", [d, MiniLM.intermediate]),
                attentionNorm: try dense(p + "attention.output.LayerNorm", [d]),
                outputNorm: try dense(p + "output.LayerNorm", [d]))
        }
    }
}
