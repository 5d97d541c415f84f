/// A setting's value as it travels between a source (flag, environment, file) and the
/// configuration tree: whole numbers, or numbers with a fraction (rates, seconds).
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    /// A whole number (counts, bytes).
    case integer(Int)
    /// A number that may have a fraction (rates per second, durations in seconds).
    case number(Double)

    /// The value as the table and the error messages show it.
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
    }

    /// The value as a `Double`, whichever case it is.
    var asDouble: Double {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        }
    }
}
