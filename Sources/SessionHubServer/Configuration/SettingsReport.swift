/// What ``SettingsLoader/load(_:into:)`` changed, for the start-up log.
public struct SettingsReport: Sendable, Equatable {
    /// The settings that did not keep their defaults, in catalog order.
    public var applied: [AppliedSetting]
    /// `SESSIONHUB_` environment variables that name no setting (likely typos; logged as warnings).
    public var unknownEnvironment: [String]
}

