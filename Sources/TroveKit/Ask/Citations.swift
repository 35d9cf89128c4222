/// The `[n]` citations of an answer, checked against the sources the model was given.
public struct Citations: Sendable, Equatable {
    /// Numbers cited that match a source, in order of first citation.
    public var cited: [Int]
    /// Numbers cited that match no source: the model invented them.
    public var unknown: [Int]

    /// Reads `[1]`, `[2][3]`, `[1, 2]` and `[1-3]` from `answer`; `sourceCount` sources were numbered 1…sourceCount.
    public init(answer: String, sourceCount: Int) {
        var cited: [Int] = []
        var unknown: [Int] = []
        for number in Self.numbers(in: answer) {
            if number >= 1 && number <= sourceCount {
                if !cited.contains(number) { cited.append(number) }
            } else if !unknown.contains(number) {
                unknown.append(number)
            }
        }
        self.cited = cited
        self.unknown = unknown
    }

    /// Every number inside square brackets that hold only digits, commas, dashes and spaces.
    static func numbers(in text: String) -> [Int] {
        var result: [Int] = []
        var remainder = text[...]
        while let open = remainder.firstIndex(of: "[") {
            let afterOpen = remainder.index(after: open)
            guard let close = remainder[afterOpen...].firstIndex(of: "]") else { break }
            let inside = remainder[afterOpen..<close]
            if !inside.isEmpty, inside.allSatisfy({ $0.isNumber || $0 == "," || $0 == "-" || $0 == " " }) {
                for part in inside.split(separator: ",") {
                    let bounds = part.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: " ")) }
                    if bounds.count == 2, bounds[0] <= bounds[1], bounds[1] - bounds[0] < 50 {
                        result.append(contentsOf: bounds[0]...bounds[1])
                    } else if bounds.count == 1 {
                        result.append(bounds[0])
                    }
                }
            }
            remainder = remainder[afterOpen...]
        }
        return result
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return text
    }
}
