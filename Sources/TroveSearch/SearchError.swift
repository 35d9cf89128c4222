import TroveSystem

/// Why a query cannot be ranked against a matrix.
package struct SearchError: TroveError, Equatable {
    /// The kind of failure, for callers that branch on it.
    package enum Code: Sendable, Equatable {
        /// The query's length differs from the matrix dimension.
        case dimensionMismatch
        /// The query holds NaN or an infinity.
        case nonFiniteQuery
    }

    /// The kind of failure.
    package let code: Code
    /// A lowercase message naming what was expected and what was found.
    package let message: String

    /// An error with its code and message.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
