/// English words too common to say much, in two strengths. Keyword queries drop every function word
/// (`functionWords`); snippets compare lines on words of three letters or more, skipping only the commonest
/// (`lineWords`). Each list is kept as it was tuned: `lineWords` is `commonest` plus "mine", which keyword queries
/// keep (a noun as well: "gold mine").
enum StopWords {
    /// Function words (articles, pronouns, auxiliaries, prepositions, conjunctions, question words), dropped from
    /// keyword queries.
    static let functionWords = commonest.union(otherFunctionWords)

    /// Words so common that sharing them says nothing about a line.
    static let lineWords = commonest.union(["mine"])

    /// The words both lists hold.
    private static let commonest: Set<String> = [
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "has", "have", "her", "his", "how",
        "its", "our", "out", "was", "who", "why", "what", "when", "where", "which", "with", "this", "that", "these",
        "those", "from", "into", "about", "there", "their", "them", "then", "than", "does", "did", "doing", "would",
        "should", "could", "will", "been", "being", "were", "your", "yours", "my",
    ]

    /// The function words only keyword queries drop.
    private static let otherFunctionWords: Set<String> = [
        "a", "above", "after", "again", "against", "am", "an", "as", "at", "be", "because", "before", "below",
        "between", "both", "by", "do", "down", "during", "each", "few", "further", "having", "he", "here", "hers",
        "herself", "him", "himself", "i", "if", "in", "is", "it", "it's", "itself", "just", "me", "more", "most",
        "must", "myself", "no", "nor", "now", "of", "off", "on", "once", "only", "or", "other", "ours", "ourselves",
        "over", "own", "same", "she", "so", "some", "such", "theirs", "themselves", "they", "through", "to", "too",
        "under", "until", "up", "very", "we", "while", "whom", "yourself", "yourselves", "i'm", "i've", "we've",
        "don't", "can't", "won't", "isn't", "there's", "let", "may", "might", "shall", "also",
    ]
}
