/// Where ``SettingsLoader`` reads settings from, highest precedence first: flags, then
/// environment variables, then a JSON file, then the defaults.
public struct SettingsSources: Sendable {
    /// Setting flags, e.g. `["--session-max-text-length", "300", "--websocket-ping-interval=10"]`
    /// (what `sessionhub serve` did not recognise as one of its own options).
    public var arguments: [String]
    /// The process environment; only `SESSIONHUB_`-prefixed names are read.
    public var environment: [String: String]
    /// A JSON file of nested objects, e.g. `{"session": {"maxTextLength": 300}}`; nil for none.
    public var file: String?

    /// Creates sources; every one is empty by default.
    public init(arguments: [String] = [], environment: [String: String] = [:], file: String? = nil) {
        self.arguments = arguments
        self.environment = environment
        self.file = file
    }

    /// The prefix of every environment variable of the settings tree.
    public static let environmentPrefix = "sessionhub"
}
