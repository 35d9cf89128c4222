/// "Did you mean …?" for a mistyped command, option or value.
package enum Suggestion {
    /// The candidate nearest to `word` by edit distance (a swap of two neighbours counts once), when it is near
    /// enough to be a typo: one edit for short words, two from five letters on; or the one candidate `word` begins.
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let bare = strip(word)
        guard bare.count > 1 else { return nil }  // one letter (a short option) is too little to guess from
        let limit = bare.count >= 5 ? 2 : 1
        let scored = candidates.map { ($0, distance(bare, strip($0))) }.filter { $0.1 <= limit }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        let extending = candidates.filter { strip($0).starts(with: bare) }
        return extending.count == 1 ? extending[0] : nil
    }

    private static func strip(_ word: String) -> [Character] {
        Array(word.drop(while: { $0 == "-" }).lowercased())
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
