import Foundation
import Ollama
import TroveOutput

/// `trove config`: the effective settings and where each came from.
struct ConfigCommand: Command {
    static let name = "config"
    static let abstract = "Show the effective settings and where each comes from (flag, environment, file, default)."
    static let usage = "trove config [--json] [options]"
    static var discussion: String {
        """
        Settings come from flags, then the environment, then the config file, then built-in defaults.
        The config file is $TROVE_CONFIG, else $XDG_CONFIG_HOME/trove/config.json, else ~/.config/trove/config.json:
        a JSON object with any of these keys:

        \(Setting.keyTable)

        Example:
          {"ollama_url": "http://gpu-box:11434", "chat_model": "qwen2.5:7b", "search_limit": 5}

        The API key ($OLLAMA_API_KEY or --api-key) is never read from or written to the file.
        """
    }
    static let optionGroups = [OptionGroup("Options", [json, model, chatModel, apiKey] + CommonOptions.options)]

    static let json = Option("--json", help: "one JSON object: key → {value, source}")
    static let model = Option("--model", value: "NAME", help: "show the effect of --model")
    static let chatModel = Option("--chat-model", value: "NAME", help: "show the effect of --chat-model")
    static let apiKey = Option(
        "--api-key", value: "KEY", help: "show the effect of --api-key (the key itself is never shown)")

    var common: CommonOptions
    var json: Bool
    var model: String?
    var chatModel: String?
    var apiKey: String?

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        json = arguments.flag(Self.json)
        model = arguments.value(Self.model)
        chatModel = arguments.value(Self.chatModel)
        apiKey = arguments.value(Self.apiKey)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, console: console, apiKey: apiKey)
        let entries = settings.entries(common: common, embedModelFlag: model, chatModelFlag: chatModel)
        if json {
            struct Item: Encodable {
                var value: String
                var source: String
            }
            var object = Dictionary(
                uniqueKeysWithValues: entries.map { ($0.key, Item(value: $0.value, source: $0.source)) })
            object["config_file"] = Item(
                value: settings.file.path, source: settings.file.exists ? "found" : "not found")
            console.print(try JSONOutput.encode(object))
            return ExitCode.success
        }
        let width = entries.map(\.key.count).max() ?? 0
        let valueWidth = entries.map(\.value.count).max() ?? 0
        for entry in entries {
            let key = entry.key.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            let value = entry.value.padding(toLength: valueWidth + 2, withPad: " ", startingAt: 0)
            console.print("\(key)\(value)(\(entry.source))")
        }
        console.print("config file: \(settings.file.path)\(settings.file.exists ? "" : " (not found)")")
        return ExitCode.success
    }
}
