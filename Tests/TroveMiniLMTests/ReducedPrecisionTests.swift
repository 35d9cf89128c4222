import Foundation
import Testing
import TroveBLAS

@testable import TroveMiniLM
import TroveTestTraits

/// What a reduced precision changes in the vectors: within the bounds for long batches, nothing for a query.
@Suite(
    "Reduced-precision encoder", .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason),
    .offCooperativePool)
struct ReducedPrecisionTests {
    @Test("auto is bf16 on an AMD CPU with AVX-512 BF16, int16 on one with AVX2 and no AVX-512, else fp32")
    func automatic() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        #expect(CPU.isAMD == cpuinfo.contains("vendor_id\t: AuthenticAMD"), "the vendor is read")
        let expected: Precision =
            CPU.hasAVX512BF16 && CPU.isAMD ? .bf16 : CPU.hasAVX2 && !CPU.hasAVX512 ? .int16 : .fp32
        #expect(Precision.automatic == expected)
        #expect(Precision.fp32.isSupported)
    }

    /// The bounds: per-chunk cosine to fp32 of at least 0.999 for bf16 (and int16, which `auto` picks too)
    /// and 0.995 for int8.
    static let bounds: [Precision: Double] = [.bf16: 0.999, .int8: 0.995, .int16: 0.999]

    @Test(
        "every one of 200 cranfield chunks within the precision's cosine bound of fp32's",
        arguments: [Precision.bf16, .int8, .int16])
    func chunks(_ precision: Precision) throws {
        guard precision.isSupported else {
            print("SKIP \(precision.rawValue) chunks: this CPU has no \(precision.instructions)")
            return
        }
        let model = try #require(InstalledModel.model)
        let (texts, expected) = try CranfieldFixture.load()
        let vectors = model.embed(texts, threads: 2, precision: precision)
        let cosines = zip(vectors, expected).map { cosine($0, $1) }
        let worst = cosines.min() ?? 0
        let mean = cosines.reduce(0, +) / Double(cosines.count)
        let bound = try #require(Self.bounds[precision])
        #expect(worst >= bound, "\(precision.rawValue): lowest cosine \(worst), mean \(mean)")
        print("\(precision.rawValue) cosine to fp32 on 200 chunks: min \(worst), mean \(mean)")
        // Not fp32 in disguise: the products did change.
        #expect(
            cosines.contains { $0 < 0.999_999 }, "\(precision.rawValue) vectors equal fp32's: its products did not run")
    }

    @Test(
        "a query is multiplied in fp32 whatever the precision: the fingerprint probe of a bf16 index is fp32's",
        arguments: Precision.allCases.filter(\.isSupported))
    func queriesStayFP32(_ precision: Precision) throws {
        let model = try #require(InstalledModel.model)
        // Fingerprint.probeText (TroveKit), the longest text a check embeds.
        let probe = "Trove probe: how do I rotate the SSH keys on the bastion host? The quick brown fox."
        #expect(model.tokenizer.encode(probe).count <= MiniLM.inPlaceTokens)
        let fp32 = model.embed([probe], threads: 1, precision: .fp32)
        #expect(model.embed([probe], threads: 1, precision: precision) == fp32)
    }

    @Test(
        "each precision's products alone are measured, for trove-bench embed's ceiling",
        arguments: Precision.allCases.filter(\.isSupported))
    func productCeiling(_ precision: Precision) throws {
        let model = try #require(InstalledModel.model)
        let ceiling = model.productCeiling(precision, threads: 2, rows: 64, repeats: 1)
        #expect(ceiling.wall.isFinite && ceiling.wall > 0, "\(precision.rawValue): \(ceiling)")
        #expect(ceiling.cpu.isFinite && ceiling.cpu > 0, "\(precision.rawValue): \(ceiling)")
    }
}
