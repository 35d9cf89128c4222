import Foundation

/// Names for models, as Ollama spells them.
public enum Model {
    /// A model reference `[host/][namespace/]name[:tag]`, e.g. `llama3.2`, `jmorgan/mistral:7b-q4`.
    public struct ID: Codable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The registry host, e.g. `registry.ollama.ai`; nil for the default.
        public var host: String?
        /// The namespace, e.g. `jmorgan`; nil for the default (`library`).
        public var namespace: String?
        /// The model's name, e.g. `llama3.2`.
        public var name: String
        /// The tag, e.g. `7b-q4`; nil means `latest`.
        public var tag: String?

        /// Why a text is not a model name.
        public struct Invalid: Error, CustomStringConvertible, Sendable, Equatable {
            /// The text as given.
            public var text: String
            /// What is wrong with it.
            public var reason: String
            /// E.g. `'a::b' is not a model name: the tag is empty`.
            public var description: String { "'\(text)' is not a model name: \(reason)" }
        }

        /// Parses `[host/][namespace/]name[:tag]`; throws `Invalid` for empty parts or stray characters.
        public init(parsing text: String) throws {
            func invalid(_ reason: String) -> Invalid { Invalid(text: text, reason: reason) }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw invalid("it is empty") }
            var parts = trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 3 else {
                throw invalid("expected at most host/namespace/name, got \(parts.count) parts")
            }
            var last = parts.removeLast()
            var tag: String?
            if let colon = last.lastIndex(of: ":") {
                tag = String(last[last.index(after: colon)...])
                last = String(last[..<colon])
                if tag!.isEmpty { throw invalid("the tag after ':' is empty") }
            }
            guard !last.isEmpty else { throw invalid("the name is empty") }
            if parts.contains(where: \.isEmpty) { throw invalid("a part between '/' is empty") }
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-"))
            for part in [last, tag ?? ""] + parts.suffix(1)
            where part.unicodeScalars.contains(where: { !allowed.contains($0) }) {
                throw invalid("'\(part)' may hold only letters, digits, '.', '_' and '-'")
            }
            name = last
            self.tag = tag
            namespace = parts.last
            host = parts.count == 2 ? parts[0] : nil
        }

        /// An id from its parts.
        public init(host: String? = nil, namespace: String? = nil, name: String, tag: String? = nil) {
            self.host = host
            self.namespace = namespace
            self.name = name
            self.tag = tag
        }

        /// Parses a literal; an invalid literal keeps the whole text as the name.
        public init(stringLiteral value: String) {
            self = (try? ID(parsing: value)) ?? ID(name: value)
        }

        /// Decodes from a string.
        public init(from decoder: any Decoder) throws {
            let text = try String(from: decoder)
            do { self = try ID(parsing: text) } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: String(describing: error)))
            }
        }

        /// Encodes as the string Ollama accepts.
        public func encode(to encoder: any Encoder) throws { try description.encode(to: encoder) }

        /// The name as written: parts that were given, nothing added.
        public var description: String {
            let path = [host, namespace, name].compactMap { $0 }.joined(separator: "/")
            return tag.map { path + ":" + $0 } ?? path
        }

        /// The name with `:latest` when no tag was given — how `/api/tags` lists it.
        public var withTag: String {
            let path = [host, namespace, name].compactMap { $0 }.joined(separator: "/")
            return path + ":" + (tag ?? "latest")
        }

        /// Whether `other` names the same model, treating a missing tag as `latest`, `library` as no namespace,
        /// and `registry.ollama.ai` as no host.
        public func matches(_ other: ID) -> Bool { canonical == other.canonical }

        private var canonical: String {
            let host = self.host == "registry.ollama.ai" ? nil : self.host
            let namespace = (self.namespace == "library" && host == nil) ? nil : self.namespace
            return ID(host: host, namespace: namespace, name: name.lowercased(), tag: tag ?? "latest").withTag
        }
    }
}

extension OllamaClient {
    /// One line of a pull, push or create progress stream.
    public struct ProgressUpdate: Codable, Sendable, Equatable {
        /// What Ollama is doing, e.g. `pulling manifest`, `pulling 1a2b3c…`, `verifying sha256 digest`, `success`.
        public var status: String
        /// The layer being transferred.
        public var digest: String?
        /// Bytes of the layer in all.
        public var total: Int64?
        /// Bytes of the layer done so far.
        public var completed: Int64?

        /// An update, for tests and fakes.
        public init(status: String, digest: String? = nil, total: Int64? = nil, completed: Int64? = nil) {
            self.status = status
            self.digest = digest
            self.total = total
            self.completed = completed
        }

        /// True on the last line of a successful operation.
        public var isSuccess: Bool { status == "success" }

        /// `completed / total` from 0 to 1, when both are known.
        public var fraction: Double? {
            guard let total, total > 0, let completed else { return nil }
            return min(1, Double(completed) / Double(total))
        }
    }

    /// A model loaded in memory, from `GET /api/ps`.
    public struct RunningModel: Codable, Sendable, Equatable {
        /// E.g. `llama3.2:latest`.
        public var name: String
        /// The model reference.
        public var model: String?
        /// Bytes of memory it takes.
        public var size: Int64?
        /// Of which in GPU memory.
        public var sizeVRAM: Int64?
        /// The manifest digest.
        public var digest: String?
        /// When Ollama will unload it (RFC 3339).
        public var expiresAt: String?
        /// The context length it was loaded with, when the server says.
        public var contextLength: Int?

        /// An entry, for tests and fakes.
        public init(
            name: String, model: String? = nil, size: Int64? = nil, sizeVRAM: Int64? = nil, digest: String? = nil,
            expiresAt: String? = nil, contextLength: Int? = nil
        ) {
            self.name = name
            self.model = model
            self.size = size
            self.sizeVRAM = sizeVRAM
            self.digest = digest
            self.expiresAt = expiresAt
            self.contextLength = contextLength
        }

        private enum CodingKeys: String, CodingKey {
            case name, model, size, digest
            case sizeVRAM = "size_vram"
            case expiresAt = "expires_at"
            case contextLength = "context_length"
        }
    }

    /// Body of `POST /api/create`: a new model from an existing one with a new system prompt, template or parameters.
    public struct CreateRequest: Codable, Sendable, Equatable {
        /// The name of the model to create.
        public var model: String
        /// The model to start from (`FROM`).
        public var from: String?
        /// A prompt template (`TEMPLATE`).
        public var template: String?
        /// A license text (`LICENSE`).
        public var license: [String]?
        /// A system prompt (`SYSTEM`).
        public var system: String?
        /// Parameters (`PARAMETER`), e.g. `temperature` or a list of `stop` sequences.
        public var parameters: [String: JSONValue]?
        /// A conversation to start from (`MESSAGE`).
        public var messages: [Message]?
        /// A quantization to apply, e.g. `q4_K_M`.
        public var quantize: String?

        /// A request from its parts.
        public init(
            model: String, from: String? = nil, template: String? = nil, license: [String]? = nil,
            system: String? = nil, parameters: [String: JSONValue]? = nil, messages: [Message]? = nil,
            quantize: String? = nil
        ) {
            self.model = model
            self.from = from
            self.template = template
            self.license = license
            self.system = system
            self.parameters = parameters
            self.messages = messages
            self.quantize = quantize
        }

        /// A request from the text of a Modelfile (`FROM`, `PARAMETER`, `TEMPLATE`, `SYSTEM`, `LICENSE`, `MESSAGE`;
        /// values may be `"quoted"` or `"""multi-line"""`). Throws `ModelfileError` naming the line.
        public init(model: String, modelfile: String) throws {
            self.init(model: model)
            for instruction in try Modelfile.parse(modelfile) {
                let (command, value, line) = instruction
                switch command {
                case "from": from = value
                case "template": template = value
                case "system": system = value
                case "license": license = (license ?? []) + [value]
                case "parameter":
                    let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else {
                        throw ModelfileError(line: line, message: "PARAMETER needs a name and a value")
                    }
                    let key = parts[0].lowercased()
                    let raw = Modelfile.unquote(parts[1].trimmingCharacters(in: .whitespaces))
                    var parameters = self.parameters ?? [:]
                    if key == "stop" {
                        if case .array(let list) = parameters[key] {
                            parameters[key] = .array(list + [.string(raw)])
                        } else {
                            parameters[key] = .array([.string(raw)])
                        }
                    } else if let number = Double(raw) {
                        parameters[key] = .number(number)
                    } else if raw == "true" || raw == "false" {
                        parameters[key] = .bool(raw == "true")
                    } else {
                        parameters[key] = .string(raw)
                    }
                    self.parameters = parameters
                case "message":
                    let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
                    guard parts.count == 2, ["system", "user", "assistant"].contains(parts[0].lowercased()) else {
                        throw ModelfileError(
                            line: line, message: "MESSAGE needs a role (system, user or assistant) and text")
                    }
                    messages =
                        (messages ?? []) + [
                            Message(role: .init(rawValue: parts[0].lowercased()), content: Modelfile.unquote(parts[1]))
                        ]
                case "adapter":
                    throw ModelfileError(
                        line: line, message: "ADAPTER needs files uploaded as blobs, which this client does not do")
                default:
                    throw ModelfileError(line: line, message: "unknown instruction '\(command.uppercased())'")
                }
            }
            guard from != nil else { throw ModelfileError(line: 1, message: "a Modelfile needs a FROM line") }
        }
    }

    /// A Modelfile that cannot be read.
    public struct ModelfileError: Error, CustomStringConvertible, Sendable, Equatable {
        /// The 1-based line of the instruction.
        public var line: Int
        /// What is wrong.
        public var message: String
        /// E.g. `Modelfile line 3: unknown instruction 'FORM'`.
        public var description: String { "Modelfile line \(line): \(message)" }
    }
}

/// The Modelfile reader behind `CreateRequest(model:modelfile:)`.
enum Modelfile {
    /// Instructions as (lowercased command, value, line number).
    static func parse(_ text: String) throws -> [(String, String, Int)] {
        var result: [(String, String, Int)] = []
        let lines = text.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        var index = 0
        while index < lines.count {
            let start = index
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            let command = parts[0].lowercased()
            var value = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
            if let open = value.range(of: "\"\"\"") {
                // A triple-quoted value runs to the next `"""`, possibly lines later.
                let prefix = String(value[..<open.lowerBound])
                var body = String(value[open.upperBound...])
                while body.range(of: "\"\"\"") == nil {
                    guard index < lines.count else {
                        throw OllamaClient.ModelfileError(line: start + 1, message: "a \"\"\" is never closed")
                    }
                    body += "\n" + lines[index]
                    index += 1
                }
                value = prefix + String(body[..<body.range(of: "\"\"\"")!.lowerBound])
            } else {
                value = unquote(value)
            }
            guard !value.isEmpty || command == "system" else {
                throw OllamaClient.ModelfileError(line: start + 1, message: "\(command.uppercased()) needs a value")
            }
            result.append((command, value, start + 1))
        }
        return result
    }

    /// `"text"` without its quotes; other text unchanged.
    static func unquote(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }
}
