import TroveBLAS

/// The arithmetic of a large batch's products (indexing). A short batch (a query, `MiniLM.inPlaceTokens` tokens or
/// fewer) always runs in fp32 on the model file's own matrices, whatever the precision.
package enum Precision: String, CaseIterable, Sendable {
    /// fp32 throughout: OpenBLAS's sgemm on the re-laid-out copy.
    case fp32
    /// Products in bf16 with fp32 sums (`VDPBF16PS`); everything else (norms, softmax, GELU, attention) in fp32.
    case bf16

    /// Whether this CPU has the instructions.
    package var isSupported: Bool {
        switch self {
        case .fp32: true
        case .bf16: CPU.hasAVX512BF16
        }
    }

    /// What `auto` means on this CPU: bf16 where it runs (its ranking matched fp32's, BENCHMARKS.md#reduced-precision),
    /// else fp32.
    package static let automatic: Precision = bf16.isSupported ? .bf16 : .fp32
}
