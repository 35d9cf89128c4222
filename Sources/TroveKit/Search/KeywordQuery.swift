/// The words of a query worth sending to the keyword index.
package enum KeywordQuery {
    /// `text` without English function words, which match nearly every passage and would fill the keyword
    /// ranking with noise for questions like "what should I bring on the trip". When every word is a function
    /// word the text is kept as it is, so a search for "the who" still finds something.
    package static func meaningfulText(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        let kept = words.filter { word in
            let letters = word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" }
            return !StopWords.functionWords.contains(letters)
        }
        return kept.isEmpty ? text : kept.joined(separator: " ")
    }
}
