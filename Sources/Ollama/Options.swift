import Foundation

extension OllamaClient {
    /// Model parameters sent as `options`; `nil` fields are left out so the model's own defaults apply.
    public struct Options: Codable, Sendable, Equatable {
        /// Sampling temperature; 0 is (nearly) deterministic.
        public var temperature: Double?
        /// Nucleus sampling: keep the smallest set of tokens whose probability adds up to this.
        public var topP: Double?
        /// Sample among the k most likely tokens only.
        public var topK: Int?
        /// The most tokens to generate; `-1` means no limit. Reaching it ends with `done_reason` `length`.
        public var numPredict: Int?
        /// The context window in tokens; Ollama silently cuts prompts longer than this.
        public var numCtx: Int?
        /// How strongly to penalize repetitions.
        public var repeatPenalty: Double?
        /// A seed for reproducible sampling.
        public var seed: Int?
        /// Sequences that end generation when produced.
        public var stop: [String]?

        /// Options; leave a field `nil` for the model's default.
        public init(
            temperature: Double? = nil, topP: Double? = nil, topK: Int? = nil, numPredict: Int? = nil,
            numCtx: Int? = nil, repeatPenalty: Double? = nil, seed: Int? = nil, stop: [String]? = nil
        ) {
            self.temperature = temperature
            self.topP = topP
            self.topK = topK
            self.numPredict = numPredict
            self.numCtx = numCtx
            self.repeatPenalty = repeatPenalty
            self.seed = seed
            self.stop = stop
        }

        private enum CodingKeys: String, CodingKey {
            case temperature, seed, stop
            case topP = "top_p"
            case topK = "top_k"
            case numPredict = "num_predict"
            case numCtx = "num_ctx"
            case repeatPenalty = "repeat_penalty"
        }
    }

    /// The `format` of a reply: any JSON, or JSON following a schema (structured outputs).
    public enum ResponseFormat: Codable, Sendable, Equatable {
        /// `"format": "json"`.
        case json
        /// `"format": {schema}`.
        case schema(JSONValue)

        /// Decodes `"json"` or a schema object.
        public init(from decoder: any Decoder) throws {
            let value = try JSONValue(from: decoder)
            self = value == .string("json") ? .json : .schema(value)
        }

        /// Encodes as Ollama expects.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .json: try JSONValue.string("json").encode(to: encoder)
            case .schema(let schema): try schema.encode(to: encoder)
            }
        }
    }

    /// Timings and token counts of the final chunk of a chat or generate reply.
    public struct Metrics: Codable, Sendable, Equatable {
        /// Time spent on the whole request.
        public var totalDuration: Duration?
        /// Time spent loading the model.
        public var loadDuration: Duration?
        /// Tokens of the prompt Ollama actually read; less than sent means it cut the prompt to fit `num_ctx`.
        public var promptEvalCount: Int?
        /// Time spent reading the prompt.
        public var promptEvalDuration: Duration?
        /// Tokens generated.
        public var evalCount: Int?
        /// Time spent generating.
        public var evalDuration: Duration?

        /// Metrics, for tests and fakes.
        public init(
            totalDuration: Duration? = nil, loadDuration: Duration? = nil, promptEvalCount: Int? = nil,
            promptEvalDuration: Duration? = nil, evalCount: Int? = nil, evalDuration: Duration? = nil
        ) {
            self.totalDuration = totalDuration
            self.loadDuration = loadDuration
            self.promptEvalCount = promptEvalCount
            self.promptEvalDuration = promptEvalDuration
            self.evalCount = evalCount
            self.evalDuration = evalDuration
        }

        /// Generated tokens per second, when Ollama reported both count and duration.
        public var tokensPerSecond: Double? {
            guard let evalCount, let evalDuration, evalDuration > .zero else { return nil }
            return Double(evalCount) / evalDuration.timeInterval
        }

        private enum CodingKeys: String, CodingKey {
            case totalDuration = "total_duration"
            case loadDuration = "load_duration"
            case promptEvalCount = "prompt_eval_count"
            case promptEvalDuration = "prompt_eval_duration"
            case evalCount = "eval_count"
            case evalDuration = "eval_duration"
        }

        /// Decodes Ollama's nanosecond integers into `Duration`s.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func duration(_ key: CodingKeys) throws -> Duration? {
                try container.decodeIfPresent(Int64.self, forKey: key).map { .nanoseconds($0) }
            }
            totalDuration = try duration(.totalDuration)
            loadDuration = try duration(.loadDuration)
            promptEvalDuration = try duration(.promptEvalDuration)
            evalDuration = try duration(.evalDuration)
            promptEvalCount = try container.decodeIfPresent(Int.self, forKey: .promptEvalCount)
            evalCount = try container.decodeIfPresent(Int.self, forKey: .evalCount)
        }

        /// Encodes durations as nanosecond integers, like Ollama.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            func encode(_ duration: Duration?, _ key: CodingKeys) throws {
                try container.encodeIfPresent(duration.map(\.nanoseconds), forKey: key)
            }
            try encode(totalDuration, .totalDuration)
            try encode(loadDuration, .loadDuration)
            try encode(promptEvalDuration, .promptEvalDuration)
            try encode(evalDuration, .evalDuration)
            try container.encodeIfPresent(promptEvalCount, forKey: .promptEvalCount)
            try container.encodeIfPresent(evalCount, forKey: .evalCount)
        }

        /// True when no field is set (every chunk but the last).
        var isEmpty: Bool { self == Metrics() }
    }
}
