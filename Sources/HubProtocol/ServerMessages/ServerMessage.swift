/// A message from the hub, decoded by ``ServerMessageDecoder``: the client-side view of
/// section 7 of `docs/PROTOCOL.md`.
///
/// Replies to one connection (`welcome`, `joined`, `resumed`, `scenarios`, `pong`, `left`,
/// `error`) carry no `seq`; session broadcasts (`participants`, `line`, `recast`,
/// `recastAccepted`, `hostChanged`, `stats`, `ended`) carry `sessionId` and `seq`. A `type` this
/// build does not know decodes to ``other(type:)`` so a client can skip it.
public enum ServerMessage: Sendable, Equatable {
    /// The connection is authenticated (also the answer to `hello`).
    case welcome(Welcome)
    /// The answer to `startSolo`, `host` or `join`.
    case joined(Joined)
    /// The answer to `resume`.
    case resumed(Resumed)
    /// The scenario catalogue.
    case scenarios(ScenarioList)
    /// The answer to `ping`.
    case pong(Pong)
    /// The connection is back in the lobby.
    case left(Left)
    /// A refused request.
    case error(ErrorReply)
    /// Broadcast: membership or connection state changed.
    case participants(ParticipantsBroadcast)
    /// Broadcast: a line was spoken.
    case line(LineBroadcast)
    /// Broadcast: a correction was offered.
    case recast(RecastBroadcast)
    /// Broadcast: a speaker accepted a correction.
    case recastAccepted(RecastAcceptedBroadcast)
    /// Broadcast: hosting moved.
    case hostChanged(HostChangedBroadcast)
    /// Broadcast: live figures.
    case stats(StatsBroadcast)
    /// Broadcast: the session is over (always its last broadcast).
    case ended(EndedBroadcast)
    /// A message type this decoder does not know.
    case other(type: String)

    /// The wire `type`.
    public var type: String {
        let known: ServerMessageType
        switch self {
        case .welcome: known = .welcome
        case .joined: known = .joined
        case .resumed: known = .resumed
        case .scenarios: known = .scenarios
        case .pong: known = .pong
        case .left: known = .left
        case .error: known = .error
        case .participants: known = .participants
        case .line: known = .line
        case .recast: known = .recast
        case .recastAccepted: known = .recastAccepted
        case .hostChanged: known = .hostChanged
        case .stats: known = .stats
        case .ended: known = .ended
        case .other(let type): return type
        }
        return known.rawValue
    }

    /// `seq` of a broadcast; nil for replies to one connection.
    public var seq: Int? {
        switch self {
        case .participants(let m): m.seq
        case .line(let m): m.seq
        case .recast(let m): m.seq
        case .recastAccepted(let m): m.seq
        case .hostChanged(let m): m.seq
        case .stats(let m): m.seq
        case .ended(let m): m.seq
        case .welcome, .joined, .resumed, .scenarios, .pong, .left, .error, .other: nil
        }
    }

    /// `sessionId` of a broadcast; nil for replies to one connection.
    public var sessionId: String? {
        switch self {
        case .participants(let m): m.sessionId
        case .line(let m): m.sessionId
        case .recast(let m): m.sessionId
        case .recastAccepted(let m): m.sessionId
        case .hostChanged(let m): m.sessionId
        case .stats(let m): m.sessionId
        case .ended(let m): m.sessionId
        case .welcome, .joined, .resumed, .scenarios, .pong, .left, .error, .other: nil
        }
    }

    /// `ref`: the id of the request this message answers (or whose broadcast it is), if any.
    public var ref: String? {
        switch self {
        case .welcome(let m): m.ref
        case .joined(let m): m.ref
        case .resumed(let m): m.ref
        case .scenarios(let m): m.ref
        case .pong(let m): m.ref
        case .left(let m): m.ref
        case .error(let m): m.ref
        case .line(let m): m.ref
        case .recast(let m): m.ref
        case .recastAccepted(let m): m.ref
        case .ended(let m): m.ref
        case .participants, .hostChanged, .stats, .other: nil
        }
    }
}
