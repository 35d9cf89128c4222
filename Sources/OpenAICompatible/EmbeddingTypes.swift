import Foundation

/// `POST /v1/embeddings`: one batch of texts.
public struct EmbeddingsRequest: Sendable, Equatable, Encodable {
    /// How the server should write the vectors.
    public enum Encoding: String, Sendable, Codable { case float, base64 }

    public var model: String
    public var input: [String]
    public var encodingFormat: Encoding
    /// Asks for shorter vectors, where the model supports it (OpenAI's text-embedding-3); nil leaves it out.
    public var dimensions: Int?

    public init(model: String, input: [String], encodingFormat: Encoding = .float, dimensions: Int? = nil) {
        self.model = model
        self.input = input
        self.encodingFormat = encodingFormat
        self.dimensions = dimensions
    }

    enum CodingKeys: String, CodingKey {
        case model, input, dimensions
        case encodingFormat = "encoding_format"
    }
}

/// The reply of `/v1/embeddings`, as sent.
public struct EmbeddingsReply: Sendable, Decodable {
    public struct Item: Sendable, Decodable {
        public var index: Int?
        public var embedding: Vector
    }

    /// A vector as a JSON array of numbers or as base64 of little-endian float32s.
    public enum Vector: Sendable, Decodable {
        case floats([Float])
        case base64(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .base64(text)
            } else {
                self = .floats(try container.decode([Float].self))
            }
        }

        /// The numbers, or nil when the base64 is not a whole number of float32s.
        public var floats: [Float]? {
            switch self {
            case .floats(let values): return values
            case .base64(let text):
                guard let data = Data(base64Encoded: text), data.count % 4 == 0 else { return nil }
                return stride(from: 0, to: data.count, by: 4).map { offset in
                    let bits = data[data.startIndex + offset..<data.startIndex + offset + 4].enumerated()
                        .reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
                    return Float(bitPattern: bits)
                }
            }
        }
    }

    public var data: [Item]
    public var model: String?
    public var usage: Usage?
}

/// Token counts a server reports.
public struct Usage: Sendable, Equatable, Decodable {
    public var promptTokens: Int?
    public var completionTokens: Int?
    public var totalTokens: Int?
    /// Prompt tokens served from the server's cache, where it says (`prompt_tokens_details.cached_tokens`).
    public var cachedTokens: Int?

    public init(promptTokens: Int? = nil, completionTokens: Int? = nil, totalTokens: Int? = nil, cachedTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens
        self.cachedTokens = cachedTokens
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
        case totalTokens = "total_tokens"
        case details = "prompt_tokens_details"
    }
    enum DetailKeys: String, CodingKey { case cachedTokens = "cached_tokens" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        promptTokens = try container.decodeIfPresent(Int.self, forKey: .promptTokens)
        completionTokens = try container.decodeIfPresent(Int.self, forKey: .completionTokens)
        totalTokens = try container.decodeIfPresent(Int.self, forKey: .totalTokens)
        let details = try? container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
        cachedTokens = try details?.decodeIfPresent(Int.self, forKey: .cachedTokens)
    }
}

/// `GET /v1/models`.
public struct ModelList: Sendable, Decodable {
    public struct Model: Sendable, Decodable, Equatable {
        public var id: String
        public var ownedBy: String?
        enum CodingKeys: String, CodingKey {
            case id
            case ownedBy = "owned_by"
        }
    }
    public var data: [Model]
}
