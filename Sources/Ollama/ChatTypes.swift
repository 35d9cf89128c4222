// One family of wire types, the bodies of /api/chat and /api/generate and their streamed replies, kept in one file
// over 400 lines so that each request sits beside the response and options it shares fields with.
import Foundation

extension OllamaClient {
    /// One message of a conversation.
    public struct Message: Codable, Sendable, Equatable {
        /// Who speaks: `system`, `user`, `assistant` or `tool`.
        public struct Role: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral {
            /// The role as Ollama spells it.
            public var rawValue: String
            /// A role by name.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// A role from a literal.
            public init(stringLiteral value: String) { rawValue = value }
            /// Decodes the plain string.
            public init(from decoder: any Decoder) throws { rawValue = try String(from: decoder) }
            /// Encodes the plain string.
            public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }

            /// Instructions that frame the conversation.
            public static let system: Role = "system"
            /// The person asking.
            public static let user: Role = "user"
            /// The model.
            public static let assistant: Role = "assistant"
            /// The result of a tool call, sent back to the model.
            public static let tool: Role = "tool"
        }

        /// Who speaks.
        public var role: Role
        /// The text; in a streamed reply, the next piece of it.
        public var content: String
        /// The model's reasoning, when `think` was requested and the model supports it.
        public var thinking: String?
        /// Base64-encoded images, for multimodal models.
        public var images: [String]?
        /// Tools the model wants called (assistant messages).
        public var toolCalls: [ToolCall]?
        /// Which tool produced this result (tool messages).
        public var toolName: String?

        /// A message; only `role` and `content` are usually needed.
        public init(
            role: Role, content: String, thinking: String? = nil, images: [String]? = nil,
            toolCalls: [ToolCall]? = nil, toolName: String? = nil
        ) {
            self.role = role
            self.content = content
            self.thinking = thinking
            self.images = images
            self.toolCalls = toolCalls
            self.toolName = toolName
        }

        /// A system message.
        public static func system(_ content: String) -> Message { Message(role: .system, content: content) }
        /// A user message.
        public static func user(_ content: String, images: [String]? = nil) -> Message {
            Message(role: .user, content: content, images: images)
        }
        /// An assistant message.
        public static func assistant(_ content: String, toolCalls: [ToolCall]? = nil) -> Message {
            Message(role: .assistant, content: content, toolCalls: toolCalls)
        }
        /// The result of calling tool `name`.
        public static func tool(_ content: String, name: String) -> Message {
            Message(role: .tool, content: content, toolName: name)
        }

        private enum CodingKeys: String, CodingKey {
            case role, content, thinking, images
            case toolCalls = "tool_calls"
            case toolName = "tool_name"
        }

        /// Decodes a message; a missing `content` (some tool-call replies) reads as empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            role = try container.decode(Role.self, forKey: .role)
            content = try container.decodeIfPresent(String.self, forKey: .content) ?? ""
            thinking = try container.decodeIfPresent(String.self, forKey: .thinking)
            images = try container.decodeIfPresent([String].self, forKey: .images)
            toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls)
            toolName = try container.decodeIfPresent(String.self, forKey: .toolName)
        }
    }

    /// A function the model may ask to call, described by a JSON schema of its parameters.
    public struct Tool: Codable, Sendable, Equatable {
        /// The function's name, description and parameters.
        public struct Function: Codable, Sendable, Equatable {
            /// The name the model will use in its call.
            public var name: String
            /// What the function does, for the model.
            public var description: String
            /// A JSON schema (`{"type": "object", "properties": …, "required": …}`).
            public var parameters: JSONValue

            /// A function description.
            public init(name: String, description: String, parameters: JSONValue) {
                self.name = name
                self.description = description
                self.parameters = parameters
            }
        }

        /// Always `function` today.
        public var type: String
        /// The function.
        public var function: Function

        /// A function tool.
        public init(name: String, description: String, parameters: JSONValue) {
            type = "function"
            function = Function(name: name, description: description, parameters: parameters)
        }
    }

    /// A call the model asks for; run it and send the result back as `Message.tool(_:name:)`.
    public struct ToolCall: Codable, Sendable, Equatable {
        /// The function and its arguments.
        public struct Function: Codable, Sendable, Equatable {
            /// Position among parallel calls, when the server says.
            public var index: Int?
            /// The tool's name.
            public var name: String
            /// The arguments, as the model produced them.
            public var arguments: [String: JSONValue]

            /// A call.
            public init(index: Int? = nil, name: String, arguments: [String: JSONValue]) {
                self.index = index
                self.name = name
                self.arguments = arguments
            }
        }

        /// An id some servers give each call.
        public var id: String?
        /// The function to call.
        public var function: Function

        /// A call of `name` with `arguments`.
        public init(id: String? = nil, name: String, arguments: [String: JSONValue]) {
            self.id = id
            function = Function(name: name, arguments: arguments)
        }
    }

    /// Body of `POST /api/chat` (`stream` is set by the method you call).
    public struct ChatRequest: Codable, Sendable, Equatable {
        /// The model, e.g. `llama3.2`.
        public var model: String
        /// The conversation so far, oldest first.
        public var messages: [Message]
        /// Functions the model may call.
        public var tools: [Tool]?
        /// `json` or a JSON schema the reply must follow.
        public var format: ResponseFormat?
        /// Model parameters.
        public var options: Options?
        /// Asks a thinking model to reason first (sent as `think`); the reasoning arrives in `message.thinking`.
        public var think: Think?
        /// How long the model stays loaded afterwards, e.g. `5m`.
        public var keepAlive: String?

        /// A request; `nil` fields are left out so Ollama's defaults apply.
        public init(
            model: String, messages: [Message], tools: [Tool]? = nil, format: ResponseFormat? = nil,
            options: Options? = nil, think: Think? = nil, keepAlive: String? = nil
        ) {
            self.model = model
            self.messages = messages
            self.tools = tools
            self.format = format
            self.options = options
            self.think = think
            self.keepAlive = keepAlive
        }

        private enum CodingKeys: String, CodingKey {
            case model, messages, tools, format, options, think
            case keepAlive = "keep_alive"
        }
    }

    /// One chunk of `POST /api/chat`: a piece of the message, or, when `done`, the last one with metrics.
    public struct ChatResponse: Codable, Sendable, Equatable {
        /// The model that answered.
        public var model: String
        /// When the chunk was made (RFC 3339, as sent).
        public var createdAt: String?
        /// The message, or the next piece of it when streaming.
        public var message: Message
        /// True on the last chunk.
        public var done: Bool
        /// Why generation ended: `stop` (finished), `length` (hit `num_predict` or the context), `load`, `unload`.
        public var doneReason: String?
        /// Timings and token counts (last chunk only).
        public var metrics: Metrics

        /// A chunk, for tests and fakes.
        public init(
            model: String, createdAt: String? = nil, message: Message, done: Bool, doneReason: String? = nil,
            metrics: Metrics = Metrics()
        ) {
            self.model = model
            self.createdAt = createdAt
            self.message = message
            self.done = done
            self.doneReason = doneReason
            self.metrics = metrics
        }

        private enum CodingKeys: String, CodingKey {
            case model, message, done
            case createdAt = "created_at"
            case doneReason = "done_reason"
        }

        /// Decodes a chunk, lifting the top-level metrics.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
            createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
            message =
                try container.decodeIfPresent(Message.self, forKey: .message)
                ?? Message(role: .assistant, content: "")
            done = try container.decodeIfPresent(Bool.self, forKey: .done) ?? false
            doneReason = try container.decodeIfPresent(String.self, forKey: .doneReason)
            metrics = try Metrics(from: decoder)
        }

        /// Encodes in Ollama's flat shape.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(model, forKey: .model)
            try container.encodeIfPresent(createdAt, forKey: .createdAt)
            try container.encode(message, forKey: .message)
            try container.encode(done, forKey: .done)
            try container.encodeIfPresent(doneReason, forKey: .doneReason)
            try metrics.encode(to: encoder)
        }
    }

    /// Body of `POST /api/generate` (`stream` is set by the method you call).
    public struct GenerateRequest: Codable, Sendable, Equatable {
        /// The model, e.g. `llama3.2`.
        public var model: String
        /// The prompt.
        public var prompt: String
        /// Text after the completion, for fill-in-the-middle models.
        public var suffix: String?
        /// A system prompt that overrides the Modelfile's.
        public var system: String?
        /// A prompt template that overrides the Modelfile's.
        public var template: String?
        /// True to send `prompt` as is, without the template.
        public var raw: Bool?
        /// Base64-encoded images.
        public var images: [String]?
        /// `json` or a JSON schema the reply must follow.
        public var format: ResponseFormat?
        /// Model parameters.
        public var options: Options?
        /// Asks a thinking model to reason first.
        public var think: Think?
        /// How long the model stays loaded afterwards, e.g. `5m`; `0` unloads it.
        public var keepAlive: String?

        /// A request; `nil` fields are left out so Ollama's defaults apply.
        public init(
            model: String, prompt: String, suffix: String? = nil, system: String? = nil, template: String? = nil,
            raw: Bool? = nil, images: [String]? = nil, format: ResponseFormat? = nil, options: Options? = nil,
            think: Think? = nil, keepAlive: String? = nil
        ) {
            self.model = model
            self.prompt = prompt
            self.suffix = suffix
            self.system = system
            self.template = template
            self.raw = raw
            self.images = images
            self.format = format
            self.options = options
            self.think = think
            self.keepAlive = keepAlive
        }

        private enum CodingKeys: String, CodingKey {
            case model, prompt, suffix, system, template, raw, images, format, options, think
            case keepAlive = "keep_alive"
        }
    }

    /// One chunk of `POST /api/generate`.
    public struct GenerateResponse: Codable, Sendable, Equatable {
        /// The model that answered.
        public var model: String
        /// When the chunk was made (RFC 3339, as sent).
        public var createdAt: String?
        /// The text, or the next piece of it when streaming.
        public var response: String
        /// Reasoning, when `think` was requested.
        public var thinking: String?
        /// True on the last chunk.
        public var done: Bool
        /// Why generation ended: `stop`, `length`, `load`, `unload`.
        public var doneReason: String?
        /// Timings and token counts (last chunk only).
        public var metrics: Metrics

        /// A chunk, for tests and fakes.
        public init(
            model: String, createdAt: String? = nil, response: String, thinking: String? = nil, done: Bool,
            doneReason: String? = nil, metrics: Metrics = Metrics()
        ) {
            self.model = model
            self.createdAt = createdAt
            self.response = response
            self.thinking = thinking
            self.done = done
            self.doneReason = doneReason
            self.metrics = metrics
        }

        private enum CodingKeys: String, CodingKey {
            case model, response, thinking, done
            case createdAt = "created_at"
            case doneReason = "done_reason"
        }

        /// Decodes a chunk, lifting the top-level metrics.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
            createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
            response = try container.decodeIfPresent(String.self, forKey: .response) ?? ""
            thinking = try container.decodeIfPresent(String.self, forKey: .thinking)
            done = try container.decodeIfPresent(Bool.self, forKey: .done) ?? false
            doneReason = try container.decodeIfPresent(String.self, forKey: .doneReason)
            metrics = try Metrics(from: decoder)
        }

        /// Encodes in Ollama's flat shape.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(model, forKey: .model)
            try container.encodeIfPresent(createdAt, forKey: .createdAt)
            try container.encode(response, forKey: .response)
            try container.encodeIfPresent(thinking, forKey: .thinking)
            try container.encode(done, forKey: .done)
            try container.encodeIfPresent(doneReason, forKey: .doneReason)
            try metrics.encode(to: encoder)
        }
    }
}

extension OllamaClient {
    /// Whether a thinking model reasons before it answers: `true`/`false`, or a level for models that take one.
    public enum Think: Codable, Sendable, Equatable, ExpressibleByBooleanLiteral {
        /// `"think": true`.
        case enabled
        /// `"think": false`: answer directly, even on a model that reasons by default.
        case disabled
        /// `"think": "low" | "medium" | "high"`, for models such as gpt-oss.
        case level(String)

        /// `true` or `false`.
        public init(booleanLiteral value: Bool) { self = value ? .enabled : .disabled }

        /// Decodes a boolean or a level.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = flag ? .enabled : .disabled
            } else {
                self = .level(try container.decode(String.self))
            }
        }

        /// Encodes as Ollama expects.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .enabled: try container.encode(true)
            case .disabled: try container.encode(false)
            case .level(let level): try container.encode(level)
            }
        }
    }

    /// A `keep_alive` value for `duration`, e.g. `300s` or `1500ms`; `.zero` unloads the model right away.
    public static func keepAlive(_ duration: Duration) -> String {
        let milliseconds = duration.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}

/// Adds `"stream": true|false` to a request body without making it a public field.
struct Streaming<Body: Encodable>: Encodable {
    var body: Body
    var stream: Bool
    private enum Key: String, CodingKey { case stream }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(stream, forKey: .stream)
    }
}
