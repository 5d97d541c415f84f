/// A setting's value as it travels between a source (flag, environment, file) and the
/// configuration tree: whole numbers, numbers with a fraction (rates, seconds), or text.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    /// A whole number (counts, bytes).
    case integer(Int)
    /// A number that may have a fraction (rates per second, durations in seconds).
    case number(Double)
    /// Text (paths, URLs, names).
    case text(String)

    /// The value as the table and the error messages show it.
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .text(let value): return value
        }
    }

    /// The value as a `Double`, whichever number it is (NaN for text).
    var asDouble: Double {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        case .text: return .nan
        }
    }
}
