@preconcurrency import Glibc

/// What this CPU can run, as the kernel reports it (its flags also say whether the OS saves the wide registers).
package enum CPU {
    /// The flags of the first `flags` line of /proc/cpuinfo (every core reports the same), less those above
    /// `TROVE_ISA`'s set; empty where unreadable.
    package static let flags: Set<Substring> = {
        let flags = Set(firstLine("flags").split(whereSeparator: { $0 == " " || $0 == "\t" }))
        return limit.map { $0.keeping(flags) } ?? flags
    }()

    /// Whether the CPU is AMD's (`vendor_id` AuthenticAMD). Instructions of the same name differ in speed between
    /// vendors: `VDPBF16PS` does twice an fp32 FMA's work per cycle on Zen 4 and 5, and less than it on Intel's
    /// Sapphire and Emerald Rapids (BENCHMARKS.md#reduced-precision).
    package static let isAMD = firstLine("vendor_id") == "AuthenticAMD"

    /// The value of the first /proc/cpuinfo line named `name` ("" where there is none, or no file).
    private static func firstLine(_ name: String) -> String {
        guard let file = fopen("/proc/cpuinfo", "r") else { return "" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0].filter({ !$0.isWhitespace }) == name {
                return String(parts[1].drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            }
        }
        return ""
    }

    /// The widest instruction set Trove may use (`TROVE_ISA`), to measure and test the narrower kernels on a wider
    /// CPU: with `avx2` this CPU runs what an AVX2 CPU without AVX-512 runs (OpenBLAS's `Haswell` kernel included),
    /// with `avx-vnni` what one with AVX-VNNI runs.
    package enum Limit: String, CaseIterable, Sendable {
        /// AVX2 with AVX-VNNI, no AVX-512: an Alder Lake or later Intel client CPU.
        case avxVNNI = "avx-vnni"
        /// AVX2 alone: Haswell to Comet Lake, Zen 1 to 3.
        case avx2
        /// x86-64's baseline: SSE2, no AVX.
        case baseline

        /// `flags` without those of wider sets.
        func keeping(_ flags: Set<Substring>) -> Set<Substring> {
            flags.filter { flag in
                let wider: [String] =
                    switch self {
                    case .avxVNNI: ["avx512", "avx_ifma", "avx_ne_convert", "amx"]
                    case .avx2: ["avx512", "avx_vnni", "avx_ifma", "avx_ne_convert", "amx"]
                    case .baseline: ["avx", "fma", "f16c", "amx"]
                    }
                return !wider.contains { flag.hasPrefix($0) }
            }
        }
    }

    /// `TROVE_ISA`'s limit; nil when unset (or not one of `Limit`'s names: `invalidLimit` says so).
    package static let limit: Limit? = getenv("TROVE_ISA").flatMap { Limit(rawValue: String(cString: $0)) }

    /// `TROVE_ISA`'s value when it names no `Limit` (then ignored), for a warning.
    package static var invalidLimit: String? {
        guard limit == nil, let value = getenv("TROVE_ISA") else { return nil }
        return String(cString: value)
    }

    /// The AVX-512 subsets of Skylake-X and every later Intel and AMD AVX-512 CPU: F, CD, BW, DQ, VL.
    package static let avx512: Set<Substring> = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
    /// AVX2 with fused multiply-add (Haswell and later).
    package static let avx2: Set<Substring> = ["avx2", "fma"]

    /// AVX-512 BF16 (`VDPBF16PS`, `VCVTNEPS2BF16`: Cooper Lake, Sapphire Rapids, Zen 4 and later).
    package static let avx512BF16: Set<Substring> = avx512.union(["avx512_bf16"])
    /// AVX-512 VNNI (`VPDPBUSD`: Cascade Lake, Ice Lake, Zen 4 and later).
    package static let avx512VNNI: Set<Substring> = avx512.union(["avx512_vnni"])

    /// Whether code built for `avx512` runs here.
    package static var hasAVX512: Bool { flags.isSuperset(of: avx512) }
    /// Whether code built for `avx512BF16` runs here.
    package static var hasAVX512BF16: Bool { flags.isSuperset(of: avx512BF16) }
    /// Whether code built for `avx512VNNI` runs here.
    package static var hasAVX512VNNI: Bool { flags.isSuperset(of: avx512VNNI) }
    /// AVX-VNNI (`VPDPWSSD` on AVX2's registers: Alder Lake, Sapphire Rapids, Zen 5 and later).
    package static let avxVNNI: Set<Substring> = avx2.union(["avx_vnni"])

    /// Whether code built for `avxVNNI` runs here.
    package static var hasAVXVNNI: Bool { flags.isSuperset(of: avxVNNI) }
    /// Whether code built for `avx2` runs here.
    package static var hasAVX2: Bool { flags.isSuperset(of: avx2) }
}
