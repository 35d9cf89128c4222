/// The words of a query worth sending to the keyword index.
public enum KeywordQuery {
    /// `text` without English function words, which match nearly every passage and would fill the keyword
    /// ranking with noise for questions like "what should I bring on the trip". When every word is a function
    /// word the text is kept as it is, so a search for "the who" still finds something.
    public static func meaningfulText(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        let kept = words.filter { word in
            let letters = word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" }
            return !stopWords.contains(letters)
        }
        return kept.isEmpty ? text : kept.joined(separator: " ")
    }

    /// Function words (articles, pronouns, auxiliaries, prepositions, conjunctions, question words).
    public static let stopWords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
        "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having",
        "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it",
        "it's", "its", "itself", "just", "me", "more", "most", "must", "my", "myself", "no", "nor", "not", "now",
        "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
        "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
        "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
        "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
        "your", "yours", "yourself", "yourselves", "i'm", "i've", "we've", "don't", "can't", "won't", "isn't",
        "there's", "let", "may", "might", "shall", "also",
    ]
}
