/// One entry of the settings tree: a limit or a timeout of the hub, with its key, what it bounds
/// and what happens on a breach. The default is not written here: it is the property's own default
/// in the configuration struct of its layer (``HubServerConfiguration`` and the structs it holds),
/// read back through the codec — one name, one default, one check.
public struct Setting: Sendable {
    /// What a setting takes.
    public enum Kind: String, Sendable {
        /// A whole number.
        case integer
        /// A number that may have a fraction.
        case number
        /// Seconds, fractions allowed.
        case seconds
        /// Whole seconds.
        case wholeSeconds
        /// Text (a path, a URL, a name); its ``Setting/range`` bounds its length in UTF-8 bytes.
        case text
    }

    /// The dotted key, e.g. `session.maxTextLength`: a file's nested JSON object path, and the
    /// source of the flag (`--session-max-text-length`) and environment variable
    /// (`SESSIONHUB_SESSION_MAX_TEXT_LENGTH`) names.
    public let key: String
    /// The kind of value.
    public let kind: Kind
    /// The unit, as the docs show it ("bytes", "characters", "per second", …).
    public let unit: String
    /// What it bounds, in one sentence.
    public let summary: String
    /// What a client or operator sees when it is exceeded (an error code, a close code, …).
    public let onBreach: String
    /// When the default is computed at start (nil in the struct), how; shown instead of a value.
    public let derivedDefault: String?
    /// Accepted values (for ``Kind/text``: accepted lengths in UTF-8 bytes); anything else is
    /// refused at start with ``SettingsError/outOfRange(key:value:range:source:)``.
    public let range: ClosedRange<Double>
    let read: @Sendable (HubServerConfiguration) -> SettingValue?
    let write: @Sendable (inout HubServerConfiguration, SettingValue) -> Void

    /// Declares a setting on `path` of the configuration tree.
    public init<Property>(
        _ key: String,
        _ path: any WritableKeyPath<HubServerConfiguration, Property> & Sendable,
        _ codec: SettingCodec<Property>,
        unit: String,
        range: ClosedRange<Double>,
        summary: String,
        onBreach: String,
        derivedDefault: String? = nil
    ) {
        self.key = key
        self.kind = codec.kind
        self.unit = unit
        self.range = range
        self.summary = summary
        self.onBreach = onBreach
        self.derivedDefault = derivedDefault
        self.read = { configuration in codec.encode(configuration[keyPath: path]) }
        self.write = { configuration, value in configuration[keyPath: path] = codec.decode(value) }
    }

    /// The key's components (`["session", "maxTextLength"]`).
    public var components: [String] { key.split(separator: ".").map(String.init) }

    /// The value in `configuration` (nil when it is derived at start).
    public func value(in configuration: HubServerConfiguration) -> SettingValue? { read(configuration) }

    /// The default: the value of a configuration made with every default.
    public var defaultValue: SettingValue? { read(HubServerConfiguration(secret: [])) }
}
