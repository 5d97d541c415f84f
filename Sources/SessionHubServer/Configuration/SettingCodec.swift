import NIOCore

/// How a property of the configuration tree is read and written as a ``SettingValue``: the
/// property keeps its own type (`Int`, `Double`, `TimeAmount`, milliseconds in an `Int64`, …)
/// and its own default; a codec only converts.
public struct SettingCodec<Property>: Sendable {
    /// The kind of value the setting takes.
    public let kind: Setting.Kind
    let encode: @Sendable (Property) -> SettingValue?
    let decode: @Sendable (SettingValue) -> Property

    /// A whole number held in an `Int`.
    public static var integer: SettingCodec<Int> {
        .init(kind: .integer, encode: { .integer($0) }, decode: { value in
            if case .integer(let int) = value { return int }
            return Int(value.asDouble)
        })
    }

    /// A whole number held in an `Int?` whose nil means "derived" (see ``Setting/derivedDefault``).
    public static var optionalInteger: SettingCodec<Int?> {
        .init(kind: .integer, encode: { $0.map { .integer($0) } }, decode: { value in
            if case .integer(let int) = value { return int }
            return Int(value.asDouble)
        })
    }

    /// A number held in a `Double` (rates).
    public static var number: SettingCodec<Double> {
        .init(kind: .number, encode: { .number($0) }, decode: { $0.asDouble })
    }

    /// Seconds (fractions allowed) held in a NIO `TimeAmount`.
    public static var seconds: SettingCodec<TimeAmount> {
        .init(kind: .seconds, encode: { .number(Double($0.nanoseconds) / 1e9) },
              decode: { .nanoseconds(Int64(($0.asDouble * 1e9).rounded())) })
    }

    /// Seconds (fractions allowed) held as milliseconds in an `Int64`.
    public static var secondsAsMilliseconds: SettingCodec<Int64> {
        .init(kind: .seconds, encode: { .number(Double($0) / 1000) },
              decode: { Int64(($0.asDouble * 1000).rounded()) })
    }

    /// Whole seconds held in an `Int64`.
    public static var wholeSeconds64: SettingCodec<Int64> {
        .init(kind: .wholeSeconds, encode: { .integer(Int($0)) }, decode: { Int64($0.asDouble) })
    }

    /// Text held in a `String?` whose nil means "not set" (shown as `none`).
    public static var optionalText: SettingCodec<String?> {
        .init(kind: .text, encode: { $0.map { .text($0) } }, decode: { value in
            if case .text(let text) = value { return text }
            return value.description
        })
    }

    /// Whole seconds held in an `Int`.
    public static var wholeSeconds: SettingCodec<Int> {
        .init(kind: .wholeSeconds, encode: { .integer($0) }, decode: { Int($0.asDouble) })
    }
}
