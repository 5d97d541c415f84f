/// One setting that a source changed.
public struct AppliedSetting: Sendable, Equatable {
    /// The setting's key.
    public var key: String
    /// The value it now has.
    public var value: SettingValue
    /// Where it came from: `flag --…`, `environment SESSIONHUB_…` or `file PATH`.
    public var source: String
}
