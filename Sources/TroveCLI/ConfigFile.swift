import Foundation
import Ollama
import TroveKit
import TroveSystem

/// `$XDG_CONFIG_HOME/trove/config.json` (or `~/.config/trove/config.json`, or `$TROVE_CONFIG`): a JSON object of
/// the keys `Setting.all` declares. A missing file is fine; an unknown key or a bad value is an error naming the key
/// and the file.
struct ConfigFile: Equatable {
    /// Where the file is (or would be).
    var path: String
    /// Whether it exists.
    var exists = false
    /// The values it holds, each checked against its setting's `Setting.Value`.
    var values: [String: JSON] = [:]

    /// The text `setting` holds in the file.
    func text(_ setting: Setting) -> String? { setting.key.flatMap { values[$0]?.stringValue } }

    /// The number `setting` holds in the file.
    func number(_ setting: Setting) -> Double? { setting.key.flatMap { values[$0]?.doubleValue } }

    /// The provider `setting` holds in the file (checked when read).
    func provider(_ setting: Setting) -> Provider? { text(setting).flatMap(Provider.init(rawValue:)) }

    /// A problem with the file.
    struct Problem: TroveError, Equatable {
        var message: String
    }

    /// The path the environment points at.
    static func path(environment: [String: String]) -> String {
        if let path = environment["TROVE_CONFIG"], !path.isEmpty {
            return IndexLocation.expandingTilde(path, environment: environment)
        }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/trove/config.json" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/root"
        return home + "/.config/trove/config.json"
    }

    /// Reads the file, if there is one.
    static func load(environment: [String: String]) throws -> ConfigFile {
        let path = path(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else {
            // There but unreadable (permissions, a folder): an error, since silently running without the user's
            // settings (another server, another index) is worse than stopping.
            var info = stat()
            if lstat(path, &info) == 0 {
                let reason =
                    (info.st_mode & S_IFMT) == S_IFDIR
                    ? "it is a folder" : access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "it cannot be read"
                throw Problem(message: "config file \(path) cannot be read: \(reason) — fix it, or set TROVE_CONFIG")
            }
            if environment["TROVE_CONFIG"].map({ !$0.isEmpty }) == true {
                throw Problem(
                    message: "config file \(path) (from TROVE_CONFIG) cannot be read — create it or unset TROVE_CONFIG")
            }
            return ConfigFile(path: path)
        }
        return try parse(data, path: path)
    }

    /// Parses the text of a config file found at `path`, once: `JSON` tells `true` from `1`.
    static func parse(_ data: Data, path: String) throws -> ConfigFile {
        var file = ConfigFile(path: path, exists: true)
        if String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return file }
        guard let any = try? JSONDecoder().decode(JSON.self, from: data) else {
            throw Problem(message: "config file \(path) is not valid JSON — fix it, or see: trove config --help")
        }
        guard let object = any.objectValue else {
            throw Problem(message: "config file \(path) must hold a JSON object like {\"chat_model\": \"llama3.2\"}")
        }
        let keys = Setting.fileKeys
        for key in object.keys.sorted() where !keys.contains(key) {
            throw Problem(
                message:
                    "unknown key '\(key)' in config file \(path) — known keys: \(keys.sorted().joined(separator: ", "))"
            )
        }
        for setting in Setting.all where setting.inFile {
            guard let key = setting.key, let value = object[key] else { continue }
            try check(value, of: setting, key: key, path: path)
            file.values[key] = value
        }
        return file
    }

    /// Throws unless `value` is what `setting` takes.
    private static func check(_ value: JSON, of setting: Setting, key: String, path: String) throws {
        func bad(_ expected: String) -> Problem {
            let found = (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
            return Problem(message: "bad value for '\(key)' in config file \(path): expected \(expected), got \(found)")
        }
        switch setting.value {
        case .text, .host, .provider:
            guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw bad("a non-empty string")
            }
            if case .provider(let providers) = setting.value, !providers.contains(where: { $0.rawValue == text }) {
                throw Problem(
                    message: "bad value for '\(key)' in config file \(path): expected \(Provider.spelled(providers))")
            }
            if case .host = setting.value {
                do { _ = try OllamaHost.parse(text, source: key) } catch let error as OllamaHost.InvalidHost {
                    throw Problem(message: "bad value for '\(key)' in config file \(path): \(error.reason)")
                }
            }
        case .wholeNumber(let range):
            guard let number = value.doubleValue, number == number.rounded(), number >= Double(range.lowerBound),
                number <= Double(range.upperBound)
            else { throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)") }
        case .number(let range):
            guard let number = value.doubleValue, range.contains(number) else {
                throw bad("a number from \(range.lowerBound.plainText) to \(range.upperBound.plainText)")
            }
        case .seconds:
            guard let number = value.doubleValue, number > 0, number <= 86_400 else {
                throw bad("a number of seconds above 0")
            }
        }
    }
}
