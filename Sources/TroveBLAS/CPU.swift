@preconcurrency import Glibc

/// What this CPU can run, as the kernel reports it (its flags also say whether the OS saves the wide registers).
package enum CPU {
    /// The flags of the first `flags` line of /proc/cpuinfo (every core reports the same); empty where unreadable.
    package static let flags: Set<Substring> = {
        guard let file = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("flags") { return Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })) }
        }
        return []
    }()

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
    /// Whether code built for `avx2` runs here.
    package static var hasAVX2: Bool { flags.isSuperset(of: avx2) }
}
