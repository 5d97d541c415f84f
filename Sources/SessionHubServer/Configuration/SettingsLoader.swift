import Configuration
import Foundation

/// Loads the settings tree (``SettingsCatalog``) into a ``HubServerConfiguration`` from flags,
/// `SESSIONHUB_*` environment variables and a JSON file, through apple/swift-configuration's
/// providers (which also name the flags and variables, so the docs cannot disagree with them).
///
/// Strict where a typo would otherwise go unnoticed: an unknown flag or file key, a value of the
/// wrong kind or out of range each stop the start with a ``SettingsError``. Unknown `SESSIONHUB_`
/// variables are only reported (``SettingsReport/unknownEnvironment``): an environment is shared.
public enum SettingsLoader {
    /// Environment variables of the hub that are not settings of the tree.
    /// (`deploy/` reads the others in its unit and entry point.)
    public static let otherEnvironmentVariables: Set<String> = [
        "SESSIONHUB_SECRET", "SESSIONHUB_CONFIG", "SESSIONHUB_HOST", "SESSIONHUB_PORT", "SESSIONHUB_DATABASE",
        "SESSIONHUB_LOG_LEVEL", "SESSIONHUB_LOG_FORMAT", "SESSIONHUB_EXTRA_OPTS",
        "SESSIONHUB_DATABASE_URL", "SESSIONHUB_NODE_ID", "SESSIONHUB_PUBLIC_URL", "SESSIONHUB_INTERNAL_URL",
    ]

    /// Applies `sources` to `configuration`, highest precedence first: flags, environment, file.
    /// - Throws: ``SettingsError`` for the first problem found; `configuration` is then unchanged.
    public static func load(_ sources: SettingsSources, into configuration: inout HubServerConfiguration)
        async throws(SettingsError) -> SettingsReport {
        try checkArguments(sources.arguments)
        var layers: [(provider: any ConfigProvider, source: Source)] = [
            (CommandLineArgumentsProvider(arguments: ["sessionhub"] + sources.arguments), .flag),
            (EnvironmentVariablesProvider(environmentVariables: sources.environment), .environment),
        ]
        if let path = sources.file {
            layers.append((try await fileProvider(path), .file(path)))
        }
        var updated = configuration
        var applied: [AppliedSetting] = []
        for setting in SettingsCatalog.all {
            for layer in layers {
                guard let value = try lookUp(setting, in: layer.provider, source: layer.source) else { continue }
                setting.write(&updated, value.value)
                applied.append(AppliedSetting(key: setting.key, value: value.value, source: value.origin))
                break
            }
        }
        configuration = updated
        let names = Set(SettingsCatalog.all.map(environmentName(for:)))
        let unknown = sources.environment.keys.filter {
            $0.hasPrefix("SESSIONHUB_") && !names.contains($0) && !otherEnvironmentVariables.contains($0)
        }
        return SettingsReport(applied: applied, unknownEnvironment: unknown.sorted())
    }

    /// The flag that sets `setting`, e.g. `--session-max-text-length`.
    public static func flagName(for setting: Setting) -> String {
        encodedKey(CommandLineArgumentsProvider(arguments: []), setting.components)
    }

    /// The environment variable that sets `setting`, e.g. `SESSIONHUB_SESSION_MAX_TEXT_LENGTH`.
    public static func environmentName(for setting: Setting) -> String {
        encodedKey(EnvironmentVariablesProvider(environmentVariables: [:]),
                   [SettingsSources.environmentPrefix] + setting.components)
    }

    // MARK: - Internals

    private enum Source {
        case flag, environment, file(String)
    }

    private static func encodedKey(_ provider: some ConfigProvider, _ components: [String]) -> String {
        (try? provider.value(forKey: AbsoluteConfigKey(components), type: .string).encodedKey) ?? components.joined(separator: ".")
    }

    private static func lookUp(_ setting: Setting, in provider: any ConfigProvider, source: Source)
        throws(SettingsError) -> (value: SettingValue, origin: String)? {
        let components: [String]
        switch source {
        case .environment: components = [SettingsSources.environmentPrefix] + setting.components
        case .flag, .file: components = setting.components
        }
        let key = AbsoluteConfigKey(components)
        if setting.kind == .text { return try lookUpText(setting, key: key, in: provider, source: source) }
        let whole = setting.kind == .integer || setting.kind == .wholeSeconds
        let raw: LookupResult
        do {
            raw = try provider.value(forKey: key, type: whole ? .int : .double)
        } catch {
            let text = (try? provider.value(forKey: key, type: .string).value).flatMap { value -> String? in
                if case .string(let string) = value.content { return string }
                return nil
            } ?? "?"
            throw .invalidValue(key: setting.key, value: text, source: describe(source, raw: nil, setting: setting),
                                expected: whole ? "a whole number" : "a number")
        }
        guard let content = raw.value?.content else { return nil }
        let value: SettingValue
        switch content {
        case .int(let int): value = whole ? .integer(int) : .number(Double(int))
        case .double(let double): value = .number(double)
        default:
            throw .invalidValue(key: setting.key, value: "\(content)", source: describe(source, raw: raw, setting: setting),
                                expected: whole ? "a whole number" : "a number")
        }
        let origin = describe(source, raw: raw, setting: setting)
        guard value.asDouble.isFinite, setting.range.contains(value.asDouble) else {
            throw .outOfRange(key: setting.key, value: value.description, range: rangeText(setting), source: origin)
        }
        return (value, origin)
    }

    /// A text setting: any string whose UTF-8 length is in the setting's range and that holds no
    /// control character.
    private static func lookUpText(_ setting: Setting, key: AbsoluteConfigKey, in provider: any ConfigProvider, source: Source)
        throws(SettingsError) -> (value: SettingValue, origin: String)? {
        let raw: LookupResult
        do {
            raw = try provider.value(forKey: key, type: .string)
        } catch {
            throw .invalidValue(key: setting.key, value: "?", source: describe(source, raw: nil, setting: setting), expected: "text")
        }
        guard let content = raw.value?.content else { return nil }
        let origin = describe(source, raw: raw, setting: setting)
        guard case .string(let text) = content else {
            throw .invalidValue(key: setting.key, value: "\(content)", source: origin, expected: "text")
        }
        guard setting.range.contains(Double(text.utf8.count)),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw .outOfRange(key: setting.key, value: String(text.prefix(200)), range: rangeText(setting), source: origin)
        }
        return (.text(text), origin)
    }

    private static func describe(_ source: Source, raw: LookupResult?, setting: Setting) -> String {
        switch source {
        case .flag: return "flag \(raw?.encodedKey ?? flagName(for: setting))"
        case .environment: return "environment \(raw?.encodedKey ?? environmentName(for: setting))"
        case .file(let path): return "file \(path)"
        }
    }

    static func rangeText(_ setting: Setting) -> String {
        func show(_ bound: Double) -> String { SettingValue.number(bound).description }
        if setting.kind == .text {
            return "text of \(show(setting.range.lowerBound))…\(show(setting.range.upperBound)) bytes"
        }
        return "\(show(setting.range.lowerBound))…\(show(setting.range.upperBound))"
    }

    /// Every argument is `--name value` or `--name=value`, and every name is a setting's flag.
    private static func checkArguments(_ arguments: [String]) throws(SettingsError) {
        let known = Set(SettingsCatalog.all.map(flagName(for:)))
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw .unknownKey(argument, source: "argument") }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard known.contains(name) else { throw .unknownKey(name, source: "flag") }
            if argument.contains("=") {
                index += 1
            } else {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                    throw .missingValue(flag: name)
                }
                index += 2
            }
        }
    }

    /// The file's provider, after checking that every key it holds is a setting.
    private static func fileProvider(_ path: String) async throws(SettingsError) -> any ConfigProvider {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadableFile(path: path, reason: "\(error.localizedDescription)")
        }
        guard let root = object as? [String: Any] else { throw .unreadableFile(path: path, reason: "not a JSON object") }
        let known = Set(SettingsCatalog.all.map(\.key))
        for key in leafKeys(root, prefix: "") where !known.contains(key) {
            throw .unknownKey(key, source: "file \(path)")
        }
        do {
            let locator = InMemoryProvider(values: [AbsoluteConfigKey(["filePath"]): ConfigValue(.string(path), isSecret: false)])
            return try await FileProvider<JSONSnapshot>(config: ConfigReader(provider: locator))
        } catch {
            throw .unreadableFile(path: path, reason: "\(error)")
        }
    }

    private static func leafKeys(_ object: [String: Any], prefix: String) -> [String] {
        object.flatMap { name, value -> [String] in
            let key = prefix.isEmpty ? name : "\(prefix).\(name)"
            if let nested = value as? [String: Any] { return leafKeys(nested, prefix: key) }
            return [key]
        }
    }
}
