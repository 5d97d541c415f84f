import HubDomain

/// The wire `type` of every message the hub sends (docs/PROTOCOL.md): the one list of them, for
/// the hub's encoder and metrics and the client's decoder.
public enum ServerMessageType: String, Sendable, CaseIterable {
    /// Reply: the connection is authenticated.
    case welcome
    /// Reply: the connection is in a session (`join`, `host`, `startSolo`).
    case joined
    /// Reply: the connection took its seat back (`resume`).
    case resumed
    /// Reply: the scenario catalogue.
    case scenarios
    /// Reply: the answer to `ping`.
    case pong
    /// The connection is back in the lobby.
    case left
    /// Reply: a request failed.
    case error
    /// Reply: the user's profile (`getProfile`, `updateProfile`).
    case profile
    /// Reply: a page of the user's history (`getHistory`).
    case history
    /// Reply: one session of the user's history (`getHistorySession`).
    case historySession
    /// Pushed to every connection of a premium user when a session enters their history.
    case historyUpdated
    /// Broadcast: membership or connection state changed.
    case participants
    /// Broadcast: a line was spoken.
    case line
    /// Broadcast: a correction was offered.
    case recast
    /// Broadcast: the speaker accepted a correction.
    case recastAccepted
    /// Broadcast: another participant hosts now.
    case hostChanged
    /// Broadcast: live figures.
    case stats
    /// Broadcast: the session is over.
    case ended

    /// The types of session broadcasts (numbered by `seq`, journaled), in declaration order.
    public static let broadcasts: [ServerMessageType] = [.participants, .line, .recast, .recastAccepted, .hostChanged,
                                                         .stats, .ended]

    /// The type `event` is broadcast as.
    public init(_ event: SessionEvent) {
        switch event {
        case .participants: self = .participants
        case .line: self = .line
        case .recast: self = .recast
        case .recastAccepted: self = .recastAccepted
        case .hostChanged: self = .hostChanged
        case .stats: self = .stats
        case .ended: self = .ended
        }
    }
}
