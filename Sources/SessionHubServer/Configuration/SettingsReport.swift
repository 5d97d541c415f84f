/// What ``SettingsLoader/load(_:into:)`` changed, for the start-up log.
public struct SettingsReport: Sendable, Equatable {
    /// The settings that did not keep their defaults, in catalog order.
    public var applied: [AppliedSetting]
    /// `SESSIONHUB_` environment variables that name no setting (likely typos; logged as warnings).
    public var unknownEnvironment: [String]
}

/// One setting that a source changed.
public struct AppliedSetting: Sendable, Equatable {
    /// The setting's key.
    public var key: String
    /// The value it now has.
    public var value: SettingValue
    /// Where it came from: `flag --…`, `environment SESSIONHUB_…` or `file PATH`.
    public var source: String
}
