// Fuzz target: the gitignore matcher (`IgnoreRules`, `Glob`). The first line of the input is rules text (`;`
// separates rules), the rest are paths. Oracles: no crash or hang (libFuzzer's -timeout), the same answer twice,
// a rule that is a plain name (no glob characters) matches exactly that name, and a pattern of only `*` matches
// every one-segment name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard !lines.isEmpty else { return 0 }
    let rulesText = String(lines.removeFirst().map { $0 == ";" ? "\n" : $0 })
    let rules = IgnoreRules(text: rulesText, base: "")
    for path in lines.prefix(64) {
        for isDirectory in [false, true] {
            let first = rules.decision(path, isDirectory: isDirectory)
            precondition(rules.decision(path, isDirectory: isDirectory) == first, "matching is not deterministic")
            _ = rules.isExcluded(path, isDirectory: isDirectory)
        }
        let segments = Glob.segments(of: path)
        for segment in segments.prefix(8) {
            let name = String(decoding: segment, as: UTF8.self)
            let plain = !name.contains(where: { "*?[]\\!#".contains($0) }) && !name.isEmpty
                && name.first != " " && name.last != " " && !name.contains("\r")
            if plain { precondition(Glob(name).matches(name), "plain name \(name) does not match itself") }
            precondition(Glob.matchSegment(Array("*".utf8), segment), "* does not match \(name)")
        }
    }
    return 0
}
