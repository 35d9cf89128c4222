extension Array where Element == UInt8 {
    /// Whether the UTF-8 of `text` occurs in these bytes: a cheap look before a parse (does an ODF manifest name
    /// encryption).
    func contains(utf8 text: String) -> Bool {
        let needle = Array(text.utf8)
        guard let first = needle.first, needle.count <= count else { return needle.isEmpty }
        var at = startIndex
        while let found = self[at...].firstIndex(of: first) {
            guard found + needle.count <= count else { return false }
            if self[found..<found + needle.count].elementsEqual(needle) { return true }
            at = found + 1
        }
        return false
    }
}
