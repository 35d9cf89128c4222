import CTroveGEMM
import TroveBLAS
import Foundation
import Synchronization
import TroveSystem

/// all-MiniLM-L6-v2 (sentence-transformers): the 6-layer BERT encoder, mean pooling, L2 normalisation.
///
/// Embeddings and norms stay in the memory-mapped safetensors file. A batch of a few tokens (a query) multiplies the
/// file's own layer matrices in place (`trove_sgemm_nt_avx2`, or `_avx512` where the row loops are AVX-512); a larger
/// one uses them transposed and with Q, K, V concatenated (see `Weights`), mapped from a cache file beside the model
/// (`WeightsCache`); on an AMD CPU with AVX-512 BF16 it multiplies a bf16 copy packed for `trove_bf16_gemm` instead,
/// on an AVX2 one without AVX-512 an int16 copy for `trove_int16_gemm` (`Precision`, `ReducedWeights`). This file holds
/// the forward pass; the products' forms, which each layer picks per batch, are in `MiniLM+Products.swift`. Sequences
/// of a batch are packed into one matrix (no padding): token-wise layers are one product over all tokens, attention
/// runs per sequence and head. Several sequences run in parallel, each worker calling single-threaded OpenBLAS; a
/// single one splits each product (and the heads) over the threads instead, its caller and partner threads that stay
/// awake through the pass (`Lanes`).
@usableFromInline package final class MiniLM: Sendable {
    /// Vector length.
    package static let dimension = 384
    /// Tokens the model reads at most (position embeddings), `[CLS]` and `[SEP]` included.
    package static let contextLength = 512

    static let layerCount = 6
    static let headCount = 12
    static let headSize = 32
    static let intermediate = 1536
    static let epsilon: Float = 1e-12
    /// Batches of at most this many tokens (a query) multiply the file's matrices in place instead of the re-laid-out
    /// copy's: one query of 8 tokens took 7.8 ms instead of 10.3 with OpenBLAS's sgemm, which repacks the weights on
    /// every call, and at 20 tokens they were even (one thread, BENCHMARKS.md#query-embedding); at 48 the copy was 1.4×
    /// faster.
    static let inPlaceTokens = 32
    /// Tokens per `forward` batch at most (one sequence may be longer): 1024 tokens keep a batch's q, k and v (4.7 MB)
    /// in the caches while the heads read them. On Zen 4 (one thread, 96 chunks of 200 tokens) batches of 4096 tokens
    /// (19 MB of q, k and v) ran bf16 at 32.8–33.9 chunks/s and int8 at 37.6–38.2, batches of 1024 at 37.1–37.4 and
    /// 41.4–42.6, and fp32 at 17.1–17.4 and 18.1 (BENCHMARKS.md#reduced-precision).
    static let batchTokens = 1024
    /// Feed-forward rows per block: 128 repacked the weights too often (~10% slower); 512 rows is 3 MB of activations.
    static let feedForwardRows = 512

    /// The folder the files came from.
    package let folder: String
    package let tokenizer: WordPieceTokenizer
    let weights: Weights

    /// Threads that split a pass's products with its caller, started by the first pass that splits.
    private let partners = Mutex<Lanes?>(nil)

    /// The build of the row loops (layer norm, softmax, GELU) this model runs: by default the widest this CPU runs.
    package let rowKernels: Kernels.Build

    /// How the weights were loaded this time.
    package enum WeightsLoad: String, Sendable {
        /// The re-laid-out matrices were mapped from the cache file beside the model.
        case mapped
        /// They were re-laid out and written to a new cache file (there was none, or it did not check out).
        case rebuilt
        /// They were re-laid out in memory: no cache wanted, or the folder cannot be written.
        case inMemory = "in memory"
    }

    /// Where the re-laid-out weights came from (mapped or made now if this model has not needed them yet).
    package var weightsLoad: WeightsLoad { weights.relaid().load }
    /// Where the copy packed for `precision` (not fp32) came from (mapped or made now if not needed yet).
    package func weightsLoad(_ precision: Precision) -> WeightsLoad { weights.reduced(precision).load }
    /// SHA-256 of `model.safetensors` (lowercase hex), as recorded in or for the weights cache; nil without one.
    package var modelSHA256: String? { weights.sha256 }

    /// Loads `model.safetensors` and `vocab.txt` from `folder`. With `cachesWeights` the re-laid-out matrices are
    /// mapped from a file beside the model (`WeightsCache`), written there first when missing or when it does not
    /// check out; without, they are re-laid out in memory.
    package convenience init(folder: String, cachesWeights: Bool = true) throws {
        try self.init(folder: folder, rowKernels: Kernels.build, cachesWeights: cachesWeights)
    }

    /// The same, with row loops other than the best this CPU runs: for trove-bench's comparisons.
    package init(folder: String, rowKernels: Kernels.Build, cachesWeights: Bool = true) throws {
        precondition(rowKernels.isSupported, "this CPU cannot run the \(rowKernels.rawValue) row loops")
        self.folder = folder
        self.rowKernels = rowKernels
        for file in ModelFolder.files where !FileManager.default.fileExists(atPath: folder + "/" + file) {
            throw MiniLMError(
                .missingFile, "the built-in model is not installed: \(folder)/\(file) is missing — run \(ModelFolder.installCommand)")
        }
        // The vocabulary on one thread; OpenBLAS and the weights (mapping, checksum) on another: a few ms each of a
        // one-query process.
        let tokenizerLoad = Slot<Result<WordPieceTokenizer, any Error>>()
        let blasLoad = Slot<Result<Void, any Error>>()
        let weightsLoad = Slot<Result<Weights, any Error>>()
        onOwnThreads(2) { lane in
            if lane == 0 {
                tokenizerLoad.put(Result { try WordPieceTokenizer(vocabularyFile: folder + "/vocab.txt") })
                return
            }
            // The encoder calls BLAS: without OpenBLAS, an error now rather than a stop later. The cache's name
            // holds the kernel OpenBLAS chose.
            let blas = Result { try BLAS.load() }
            blasLoad.put(blas)
            guard case .success = blas else { return }
            let cacheFolder = cachesWeights ? folder : nil
            weightsLoad.put(Result { try Weights(SafeTensors(path: folder + "/model.safetensors"), cacheFolder: cacheFolder) })
        }
        try blasLoad.take().get()
        tokenizer = try tokenizerLoad.take().get()
        weights = try weightsLoad.take().get()
        // The encoder indexes the word table with the tokenizer's ids: its rows must be the vocabulary.
        _ = try weights.file.floats(Weights.wordTable, shape: [tokenizer.vocabularySize, Self.dimension])
    }


    /// Worker threads a run uses by default: one per online CPU.
    @usableFromInline package static var defaultThreads: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// One unit-length vector per text, in order; texts longer than the context are truncated. Batches longer than
    /// `inPlaceTokens` multiply in `precision` (which this CPU must run).
    package func embed(
        _ texts: [String], threads: Int = MiniLM.defaultThreads, precision: Precision = .automatic
    ) -> [[Float]] {
        // The tokenizer's ids are in the vocabulary and its sequences within the context: no check needed.
        run(
            tokens: texts.map { tokenizer.encode($0, maxLength: Self.contextLength) }, threads: threads,
            precision: precision)
    }

    /// Embeds token ids that already carry `[CLS]`/`[SEP]`; each sequence must hold 1…`contextLength` ids, each
    /// below the vocabulary size, since the encoder indexes its weight tables with them.
    package func embed(
        tokens: [[Int32]], threads: Int = MiniLM.defaultThreads, normalize: Bool = true,
        precision: Precision = .automatic
    ) throws -> [[Float]] {
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
        return run(tokens: tokens, threads: threads, normalize: normalize, precision: precision)
    }

    /// `embed(tokens:)` without the checks, for ids that came from the tokenizer.
    private func run(tokens: [[Int32]], threads: Int, normalize: Bool = true, precision: Precision) -> [[Float]] {
        precondition(precision.isSupported, "this CPU cannot run \(precision.rawValue) products")
        guard !tokens.isEmpty else { return [] }
        let workers = max(1, min(threads, tokens.count))
        // Fewer sequences than threads (a query): each worker splits its products over the threads left over.
        let lanes = max(1, threads / workers)
        // Longest first, dealt round-robin: every worker gets about the same number of tokens.
        let order = tokens.indices.sorted { tokens[$0].count > tokens[$1].count }
        var dealt = [[Int]](repeating: [], count: workers)
        for (position, index) in order.enumerated() { dealt[position % workers].append(index) }
        let groups = dealt
        let results = Results(count: tokens.count)
        // Every worker calls single-threaded OpenBLAS; the count is process-wide, so runs take turns.
        BLASRuntime.withThreadCount(1) {
            onOwnThreads(workers) { worker in
                var start = 0
                let group = groups[worker]
                while start < group.count {
                    var end = start
                    var total = 0
                    while end < group.count, end == start || total + tokens[group[end]].count <= MiniLM.batchTokens {
                        total += tokens[group[end]].count
                        end += 1
                    }
                    let batch = Array(group[start..<end])
                    let vectors = forward(
                        batch.map { tokens[$0] }, normalize: normalize, lanes: lanes, precision: precision)
                    for (index, vector) in zip(batch, vectors) { results.set(index, vector) }
                    start = end
                }
            }
        }
        return results.values
    }

    /// Mean-pooled vectors of one packed batch, on the calling thread and `lanes - 1` more: every product's columns
    /// and the attention heads are split between them. A batch too long for the in-place products multiplies in
    /// `precision`.
    func forward(_ batch: [[Int32]], normalize: Bool, lanes: Int = 1, precision: Precision = .fp32) -> [[Float]] {
        let d = Self.dimension
        let d3 = 3 * d
        let lengths = batch.map(\.count)
        let total = lengths.reduce(0, +)
        let longest = lengths.max() ?? 0
        let h = Buffer(total * d)
        let qkv = Buffer(total * d3)
        let attention = Buffer(total * d)
        let context = Buffer(total * d)
        // A bf16 batch runs its heads in bf16 too (`trove_bf16_head`), and so does an int8 batch where its
        // feed-forward product is bf16 (AMD); an int16 batch runs its heads in int16 (`trove_int16_head_scores`,
        // `_softmax`, `_mix`). Each lane has its own scratch (in floats); all but bf16's heads hold each lane's scores.
        let short = total <= Self.inPlaceTokens && CPU.hasAVX2
        let bf16Heads = !short && (precision == .bf16 || precision == .int8 && ReducedWeights.feedForwardBF16)
        let int16Heads = !short && precision == .int16
        let headScratch =
            bf16Heads
            ? (trove_bf16_head_scratch(Int32(longest), Int32(Self.headSize)) + 1) / 2
            : int16Heads ? (trove_int16_head_scratch(Int32(longest), Int32(Self.headSize)) + 3) / 4 : 0
        let heads = Buffer(lanes * headScratch)
        // Those heads read q, k and v in bf16, as the QKV product stores them.
        let qkvRounded = UnsafeMutablePointer<UInt16>.allocate(capacity: bf16Heads ? total * d3 : 1)
        // A bf16 batch's feed-forward block goes from one product to the next in bf16, through GELU on the way.
        let bf16FeedForward = !short && precision == .bf16
        let middleRounded = UnsafeMutablePointer<UInt16>.allocate(
            capacity: bf16FeedForward ? Self.feedForwardRows * Self.intermediate : 1)
        defer { [qkvRounded, middleRounded].forEach { $0.deallocate() } }
        let middle = Buffer(bf16FeedForward ? 0 : Self.feedForwardRows * Self.intermediate)
        let scores = Buffer(bf16Heads ? 0 : lanes * longest * longest)
        let inverseSums = Buffer(bf16Heads ? 0 : lanes * longest)
        defer { [h, qkv, attention, context, scores, inverseSums, middle, heads].forEach { $0.free() } }

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
        let reduced = short || precision == .fp32 ? nil : Reduced(weights.reduced(precision), total: total)
        let copy = short || reduced != nil ? nil : weights.relaid()
        defer { reduced?.free() }
        for (index, layer) in weights.layers.enumerated() {
            let relaid = copy?.layers[index]
            let packed = reduced?.weights.layers[index]
            // Row t of qkv is [q_t | k_t | v_t]: with a copy, one product.
            if let reduced, let packed {
                product(
                    .floats(h.pointer), rows: total, inner: d, reduced, packed.qkv,
                    [layer.query, layer.key, layer.value], outer: d3,
                    into: bf16Heads ? .bf16(qkvRounded, via: qkv.pointer) : .floats(qkv.pointer),
                    bias: weights.qkvBias(layer: index), lanes: lanes)
            } else if let relaid {
                Kernels.fillRows(qkv.pointer, rows: total, with: relaid.qkv.bias, width: d3)
                gemm(h.pointer, rows: total, inner: d, relaid.qkv.weight, outer: d3, into: qkv.pointer, beta: 1, lanes: lanes)
            } else {
                // The three in one split: the lanes meet once for them, not three times.
                let parts = [layer.query, layer.key, layer.value].enumerated().map { part, dense in
                    (weight: dense.weight, bias: Optional(dense.bias), out: qkv.pointer + part * d)
                }
                inPlace(h.pointer, rows: total, inner: d, parts, outer: d, stride: d3, lanes: lanes)
            }
            var offset = 0
            for n in lengths {
                split(lanes) { lane in
                    let scores = scores.pointer + lane * longest * longest
                    let inverseSums = inverseSums.pointer + lane * longest
                    let scratch = UnsafeMutableRawPointer(heads.pointer + lane * headScratch)
                    for head in stride(from: lane, to: Self.headCount, by: lanes) {
                        let column = offset * d3 + head * Self.headSize
                        let out = context.pointer + offset * d + head * Self.headSize
                        if bf16Heads {
                            trove_bf16_head(
                                Int32(n), Int32(Self.headSize), scale, qkvRounded + column, qkvRounded + column + d,
                                qkvRounded + column + 2 * d, Int32(d3), out, Int32(d),
                                scratch.assumingMemoryBound(to: UInt16.self))
                            continue
                        }
                        if int16Heads {
                            // Its own softmax, which leaves the weights in int16 for the mix, scaled as it stores.
                            trove_int16_head_scores(
                                Int32(n), Int32(Self.headSize), scale, qkv.pointer + column, qkv.pointer + column + d,
                                Int32(d3), scores, scratch)
                            trove_int16_head_softmax(Int32(n), scores, inverseSums, scratch)
                            trove_int16_head_mix(
                                Int32(n), Int32(Self.headSize), inverseSums, qkv.pointer + column + 2 * d, Int32(d3),
                                out, Int32(d), scratch)
                            continue
                        }
                        // A short batch (in place, so AVX2) multiplies its heads itself: OpenBLAS took ~5% of a
                        // query's CPU time setting up these 20×20×32 products.
                        if short {
                            trove_head_scores_avx2(
                                Int32(n), Int32(Self.headSize), scale, qkv.pointer + column, qkv.pointer + column + d,
                                Int32(d3), scores)
                        } else {
                            BLAS.sgemm(
                                CblasRowMajor, CblasNoTrans, CblasTrans, Int32(n), Int32(n), Int32(Self.headSize),
                                scale, qkv.pointer + column, Int32(d3), qkv.pointer + column + d, Int32(d3), 0, scores,
                                Int32(n))
                        }
                        Kernels.softmaxRows(scores, rows: n, columns: n, stride: n, inverseSums: inverseSums,
                            build: rowKernels)
                        if short {
                            trove_head_mix_avx2(
                                Int32(n), Int32(Self.headSize), scores, qkv.pointer + column + 2 * d, Int32(d3), out,
                                Int32(d))
                        } else {
                            BLAS.sgemm(
                                CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(n), Int32(Self.headSize), Int32(n), 1,
                                scores, Int32(n), qkv.pointer + column + 2 * d, Int32(d3), 0, out, Int32(d))
                        }
                        Kernels.scaleHeadRows(out, rows: n, stride: d, factors: inverseSums)
                    }
                }
                offset += n
            }
            // Output projection, then bias + residual + norm in one pass.
            multiply(
                context.pointer, rows: total, inner: d, layer.output, relaid?.output, (reduced, packed?.output),
                outer: d, into: attention.pointer, lanes: lanes)
            Kernels.layerNorm(
                attention.pointer, rows: total, bias: layer.output.bias, residual: h.pointer,
                weight: layer.attentionNorm.weight, shift: layer.attentionNorm.bias, epsilon: Self.epsilon, build: rowKernels)
            // Feed-forward in row blocks; the result plus residual lands in h.
            var start = 0
            while start < total {
                let rows = min(Self.feedForwardRows, total - start)
                let block = attention.pointer + start * d
                let out = h.pointer + start * d
                if bf16FeedForward, let reduced, let packed {
                    // The bias and GELU on the first product's way out, its result read by the second as it is.
                    product(
                        .floats(block), rows: rows, inner: d, reduced, packed.intermediate, [layer.intermediate],
                        outer: Self.intermediate, into: .bf16GELU(middleRounded), bias: layer.intermediate.bias,
                        lanes: lanes)
                    product(
                        .bf16(middleRounded), rows: rows, inner: Self.intermediate, reduced, packed.feedForward,
                        [layer.feedForward], outer: d, into: .floats(out), bias: nil, lanes: lanes)
                } else {
                    multiply(
                        block, rows: rows, inner: d, layer.intermediate, relaid?.intermediate,
                        (reduced, packed?.intermediate), outer: Self.intermediate, into: middle.pointer, lanes: lanes)
                    Kernels.biasGELU(
                        middle.pointer, rows: rows, width: Self.intermediate, bias: layer.intermediate.bias,
                        build: rowKernels)
                    multiply(
                        middle.pointer, rows: rows, inner: Self.intermediate, layer.feedForward, relaid?.feedForward,
                        (reduced, packed?.feedForward), outer: d, into: out, lanes: lanes)
                }
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

    /// Runs `body` for lanes 0..<`lanes` at once (the calling thread takes one), or inline for one lane: on the
    /// partner threads of `partners` (`Lanes`, as many as the first pass that split asked for), or through
    /// `concurrentPerform` while another pass holds them or for another number of lanes. A split is one product's
    /// share: too short to hold the cooperative pool the way a batch would, and to be worth `onOwnThreads`'s hand-off.
    func split(_ lanes: Int, _ body: (Int) -> Void) {
        guard lanes > 1 else { return body(0) }
        let partners = self.partners.withLock { partners in
            if partners == nil { partners = Lanes(count: lanes) }
            return partners!
        }
        if partners.run(lanes, body) { return }
        withoutActuallyEscaping(body) { body in
            let lanesBody = LanesBody(run: body)
            DispatchQueue.concurrentPerform(iterations: lanes) { lanesBody.run($0) }
        }
    }
}

/// A value one thread puts and another takes after both have finished (`onOwnThreads` returned).
private final class Slot<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func put(_ new: Value) { value.withLock { $0 = new } }
    func take() -> Value { value.withLock { $0.take()! } }
}

/// A forward pass's per-lane work, handed to other threads.
private struct LanesBody: @unchecked Sendable {
    // @unchecked: the lanes write disjoint columns and heads of buffers that outlive the `concurrentPerform` call.
    let run: (Int) -> Void
}

/// Scratch memory of one forward pass.
private struct Buffer {
    let pointer: UnsafeMutablePointer<Float>
    init(_ count: Int) { pointer = .allocate(capacity: max(count, 1)) }
    func free() { pointer.deallocate() }
}

/// Result slots written by parallel workers, each index by exactly one worker.
private final class Results: @unchecked Sendable {
    // @unchecked: workers write disjoint indices; read only after onOwnThreads returns.
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
