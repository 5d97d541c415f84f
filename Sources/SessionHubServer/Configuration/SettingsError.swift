/// Why the settings could not be loaded; `sessionhub serve` prints it and exits with 64 (usage).
public enum SettingsError: Error, Equatable, CustomStringConvertible {
    /// A flag, or a key of the settings file, that names no setting.
    case unknownKey(String, source: String)
    /// A value that is not of the setting's kind (e.g. `abc` for a number).
    case invalidValue(key: String, value: String, source: String, expected: String)
    /// A value outside the setting's range.
    case outOfRange(key: String, value: String, range: String, source: String)
    /// A flag without a value.
    case missingValue(flag: String)
    /// The settings file cannot be read or is not a JSON object.
    case unreadableFile(path: String, reason: String)

    /// One line for the operator.
    public var description: String {
        switch self {
        case .unknownKey(let key, let source):
            return "unknown setting \(key) (\(source)); `sessionhub settings` lists every setting"
        case .invalidValue(let key, let value, let source, let expected):
            return "\(key): \"\(value)\" is not \(expected) (\(source))"
        case .outOfRange(let key, let value, let range, let source):
            return "\(key): \(value) is outside \(range) (\(source))"
        case .missingValue(let flag):
            return "\(flag) needs a value"
        case .unreadableFile(let path, let reason):
            return "settings file \(path): \(reason)"
        }
    }
}
