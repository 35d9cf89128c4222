import TroveBLAS

/// The arithmetic of a large batch's products (indexing). A short batch (a query, `MiniLM.inPlaceTokens` tokens or
/// fewer) always runs in fp32 on the model file's own matrices, whatever the precision.
package enum Precision: String, CaseIterable, Sendable {
    /// fp32 throughout: OpenBLAS's sgemm on the re-laid-out copy.
    case fp32
    /// Products in bf16 with fp32 sums (`VDPBF16PS`), the attention heads' too (`trove_bf16_head`: the softmax in
    /// fp32, its weights rounded to bf16); everything else (norms, GELU) in fp32.
    case bf16
    /// Products in int8 with int32 sums (`VPDPBUSD`): weights per output column, activations per row, except the
    /// batch's 8 largest activation columns, which stay fp32 (`trove_int8.h`), and the feed-forward product, which is
    /// bf16 or fp32 (`ReducedWeights.packing`), as are the attention heads; everything else in fp32.
    case int8
    /// Products in int16 (twelve bits used) with int32 sums (`VPMADDWD`), for AVX2 CPUs without AVX-512: weights per
    /// output column, activations per row (`trove_int16.h`); the attention heads too (Q and K per row, V per column,
    /// the softmax's weights by one scale); everything else (norms, GELU, the softmax itself) in fp32.
    case int16

    /// Whether this CPU has the instructions.
    package var isSupported: Bool {
        switch self {
        case .fp32: true
        case .bf16: CPU.hasAVX512BF16
        case .int8: CPU.hasAVX512VNNI
        case .int16: CPU.hasAVX2
        }
    }

    /// The instructions it needs, for a message on a CPU that lacks them.
    package var instructions: String {
        switch self {
        case .fp32: "any CPU"
        case .bf16: "AVX-512 BF16"
        case .int8: "AVX-512 VNNI"
        case .int16: "AVX2"
        }
    }

    /// What `auto` means on this CPU: bf16 on an AMD CPU that has it (its ranking matched fp32's and it ran 2.4× as
    /// fast on Zen 5, BENCHMARKS.md#reduced-precision); int16 on an AVX2 CPU without AVX-512 (so did its ranking);
    /// else fp32 — on an AVX-512 CPU without BF16 fp32's FMAs are as wide as int16's AVX2 products, and on Intel's
    /// Emerald Rapids bf16 ran slower than fp32. Never int8: its vectors hold cosine 0.9996, but its ranking sits at
    /// the bound (one of two equally close forms moved one set's nDCG@10 0.0056).
    package static let automatic: Precision =
        bf16.isSupported && CPU.isAMD ? .bf16 : int16.isSupported && !CPU.hasAVX512 ? .int16 : .fp32
}
