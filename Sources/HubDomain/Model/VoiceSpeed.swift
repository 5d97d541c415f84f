/// The SDK's `VoiceSpeed`.
public enum VoiceSpeed: String, Codable, Sendable, CaseIterable {
    case slow = "SLOW", normal = "NORMAL", fast = "FAST"
}
