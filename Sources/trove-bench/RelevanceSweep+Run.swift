@preconcurrency import Glibc
import Dispatch
import Foundation
import Synchronization
import TroveKit
import TroveSearch
import TroveStore

/// The sweep itself: run, checked against `Retriever`, and printed as tables.
extension RelevanceSuite.Sweep {
    mutating func run() throws {
        try check()
        // 1. BM25 alone over k1 × b (heading weight 1), then heading weights at the best.
        var keywordResults: [(BM25, [[Double]])] = []
        for k1 in [0.9, 1.2, 1.5, 2.0] {
            for b in [0.3, 0.4, 0.5, 0.75] {
                let bm25 = BM25(k1: k1, b: b, headingWeight: 1)
                keywordResults.append((bm25, try evaluate(Variant(mode: .keyword, bm25: bm25))))
            }
        }
        keywordResults.sort { mean($0.1) > mean($1.1) }
        let bestKeyword = keywordResults[0].0
        for heading in [0.0, 2.0] {
            var bm25 = bestKeyword
            bm25.headingWeight = heading
            keywordResults.append((bm25, try evaluate(Variant(mode: .keyword, bm25: bm25))))
        }
        var keywordRows = keywordResults.map { (Variant(mode: .keyword, bm25: $0.0), $0.1) }
        // The same over whole documents' statistics, at SQLite's, the reference's and the best setting.
        for bm25 in [
            BM25(k1: 1.2, b: 0.75, headingWeight: 1), BM25(k1: 0.9, b: 0.4, headingWeight: 1), bestKeyword,
        ] {
            let variant = Variant(mode: .keyword, bm25: bm25, documentStatistics: true)
            keywordRows.append((variant, try evaluate(variant)))
        }
        printTable("BM25 alone (keyword mode), nDCG@10", keywordRows, reference: "BM25")

        // 2. Fusion over the BM25 settings that matter: SQLite's, the reference's, and the best alone.
        let settings = Array(
            Set([
                BM25(k1: 1.2, b: 0.75, headingWeight: 1), BM25(k1: 0.9, b: 0.4, headingWeight: 1),
                bestKeyword,
            ])
        ).sorted { ($0.k1, $0.b) < ($1.k1, $1.b) }
        var variants: [Variant] = []
        let started = Date()
        for bm25 in settings {
            // Scoring a document from its best and second passages only at the best BM25 setting alone.
            for documents in Documents.allCases where documents != .bestPlusHalfSecond || bm25 == bestKeyword {
                for depth in [50, 100, 200, 400] {
                    for weight in [0.5, 0.75, 1.0, 1.5, 2.0] {
                        for constant in [5.0, 10, 20, 30, 60, 100] {
                            let variant = Variant(
                                mode: .hybrid, fusion: .rrf, constant: constant, weight: weight, depth: depth,
                                bm25: bm25, documents: documents)
                            variants.append(variant)
                        }
                    }
                    for normalization in ScoreFusion.Normalization.allCases {
                        for weight in [0.2, 0.3, 0.5, 0.7, 1.0, 1.5] {
                            let variant = Variant(
                                mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                normalization: normalization, bm25: bm25, documents: documents)
                            variants.append(variant)
                        }
                    }
                }
            }
        }
        // Document-level keyword statistics in fusion, over a smaller grid.
        for bm25 in settings {
            for depth in [50, 100, 200, 400] {
                for weight in [0.5, 0.75, 1.0, 1.5] {
                    for constant in [5.0, 10, 20, 60] {
                        let variant = Variant(
                            mode: .hybrid, fusion: .rrf, constant: constant, weight: weight, depth: depth,
                            bm25: bm25, documents: .documentsFirst, documentStatistics: true)
                        variants.append(variant)
                    }
                    for normalization in ScoreFusion.Normalization.allCases {
                        let variant = Variant(
                            mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                            normalization: normalization, bm25: bm25, documents: .documentsFirst,
                            documentStatistics: true)
                        variants.append(variant)
                    }
                }
            }
        }
        // Convex fusion with candidates deeper than the scale: each list normalised by its best 100, so that
        // the scale does not move with the depth (the guard's small corpus is whole at depth 400).
        for bm25 in settings {
            for depth in [200, 400] {
                for normalization in ScoreFusion.Normalization.allCases {
                    for weight in [0.7, 1.0, 1.5] {
                        for documents in [Documents.bestPassage, .documentsFirst] {
                            variants.append(
                                Variant(
                                    mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                    normalization: normalization, bm25: bm25, documents: documents,
                                    statisticsDepth: 100))
                        }
                        variants.append(
                            Variant(
                                mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                normalization: normalization, bm25: bm25, documents: .documentsFirst,
                                documentStatistics: true, statisticsDepth: 100))
                    }
                }
            }
        }
        let results = try evaluate(variants)
        fputs(
            String(
                format: "%d fusion variants scored in %.0f s\n", results.count, Date().timeIntervalSince(started)),
            stderr)
        let admissible = results.filter { margin($0.1) >= 0 }.sorted { mean($0.1) > mean($1.1) }
        let scaled = results.filter { $0.0.statisticsDepth != nil }.sorted { mean($0.1) > mean($1.1) }
        printTable(
            "Convex fusion with the scale from each list's top 100, candidates deeper, best 25 by mean nDCG@10 ("
                + "\(scaled.filter { margin($0.1) >= 0.01 }.count) of \(scaled.count) meet every set at its "
                + "reference RRF + 0.01 with the guard)", Array(scaled.prefix(25)), reference: "RRF")
        printTable(
            "Best 25 hybrid variants by mean nDCG@10 with no set below its reference RRF and the guard at "
                + "\(RelevanceSuite.guardFloor) or more (\(admissible.count) of "
                + "\(results.count) qualify)", Array(admissible.prefix(25)), reference: "RRF")
        // The best of each family, so the families compare at their best.
        var families: [(Variant, [[Double]])] = []
        for (fusion, normalization) in [
            (FusionMethod.rrf, ScoreFusion.Normalization.minMax), (.convex, .minMax), (.convex, .zScore),
        ] {
            for documents in Documents.allCases {
                for bm25 in settings {
                    let family = results.filter {
                        $0.0.fusion == fusion && (fusion == .rrf || $0.0.normalization == normalization)
                            && $0.0.documents == documents && $0.0.bm25 == bm25 && !$0.0.documentStatistics
                            && $0.0.statisticsDepth == nil
                    }
                    if let best = family.max(by: { mean($0.1) < mean($1.1) }) { families.append(best) }
                }
            }
        }
        for (fusion, normalization) in [
            (FusionMethod.rrf, ScoreFusion.Normalization.minMax), (.convex, .minMax), (.convex, .zScore),
        ] {
            let family = results.filter {
                $0.0.documentStatistics && $0.0.fusion == fusion
                    && (fusion == .rrf || $0.0.normalization == normalization)
            }
            if let best = family.max(by: { mean($0.1) < mean($1.1) }) { families.append(best) }
        }
        printTable("Best of each family (fusion × document scoring × BM25), nDCG@10", families, reference: "RRF")
        let fixed = [
            Variant(
                mode: .hybrid, fusion: .rrf, constant: 10, weight: 0.5, depth: 100,
                bm25: BM25(k1: 1.2, b: 0.75, headingWeight: 1)),
            Variant(
                mode: .hybrid, fusion: .rrf, constant: 60, weight: 1, depth: 100,
                bm25: BM25(k1: 1.2, b: 0.75, headingWeight: 1)),
            Variant(
                mode: .hybrid, fusion: .rrf, constant: 60, weight: 1, depth: 100,
                bm25: BM25(k1: 0.9, b: 0.4, headingWeight: 1)),
        ]
        printTable(
            "Fixed points: the previous default, and the reference's RRF (c 60, equal weights, top 100)",
            try fixed.map { ($0, try evaluate($0)) }, reference: "RRF")
    }

    /// Confirms the in-memory ranking equals `Retriever`'s for the current defaults (same fusion code, same
    /// candidates), so the sweep's numbers are the product's.
    mutating func check() throws {
        let defaults = SearchRequest(query: "")
        let variant = Variant(
            mode: .hybrid, fusion: defaults.fusion, constant: defaults.fusionConstant,
            weight: defaults.keywordWeight,
            depth: defaults.candidateDepth, normalization: defaults.normalization, bm25: defaults.bm25,
            documents: defaults.documentLevelFusion ? .documentsFirst : .bestPassage,
            statisticsDepth: defaults.scaleDepth)
        let swept = try evaluate(variant)
        for (s, set) in sets.enumerated() {
            let measured = try RelevanceSuite.measure(set, defaults)
            let gap = abs(measured[0] - swept[s][0])
            fputs(
                String(
                    format: "%@: in-memory nDCG@10 %.4f, through Retriever %.4f%@\n", set.set.name, swept[s][0],
                    measured[0], gap > 1e-9 ? " (differs: grouping looked deeper)" : ""), stderr)
        }
    }

    /// Mean nDCG@10 over the public sets (not the guard).
    func mean(_ perSet: [[Double]]) -> Double {
        let scores = zip(sets, perSet).filter { !$0.0.set.isGuard }.map { $0.1[0] }
        return scores.reduce(0, +) / Double(scores.count)
    }

    /// The smallest nDCG@10 margin of any public set over its reference RRF; -1 when the guard falls below
    /// its floor.
    func margin(_ perSet: [[Double]]) -> Double {
        if zip(sets, perSet).contains(where: { $0.0.set.isGuard && $0.1[0] < RelevanceSuite.guardFloor }) {
            return -1
        }
        return zip(sets, perSet).filter { !$0.0.set.isGuard }.map { $1[0] - ($0.set.reference["RRF"] ?? 0) }
            .min() ?? 0
    }

    func printTable(_ title: String, _ rows: [(Variant, [[Double]])], reference: String) {
        print("\(title):\n")
        print(
            "| variant | " + sets.map(\.set.name).joined(separator: " | ")
                + " | mean | min over reference \(reference) |")
        print("|---|" + String(repeating: "---:|", count: sets.count + 2))
        let references = sets.map { $0.set.reference[reference] }
        let known = references.compactMap { $0 }
        print(
            "| reference \(reference) | "
                + references.map { $0.map { String(format: "%.4f", $0) } ?? "-" }.joined(separator: " | ")
                + String(format: " | %.4f | - |", known.reduce(0, +) / Double(known.count)))
        for (variant, perSet) in rows {
            let worst =
                zip(references, perSet).compactMap { reference, metrics in reference.map { metrics[0] - $0 } }
                .min() ?? 0
            print(
                "| \(variant.label) | " + perSet.map { String(format: "%.4f", $0[0]) }.joined(separator: " | ")
                    + String(format: " | %.4f | %+.4f |", mean(perSet), worst))
        }
        print("")
        fflush(stdout)
    }
}
