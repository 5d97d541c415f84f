import Foundation
import HubDomain

/// What a client asks for (the `type` of a client message and its fields).
public enum ClientRequest: Sendable, Equatable {
    /// States the protocol version the client speaks; answered with `welcome`.
    case hello(protocolVersion: Int?)
    /// Authenticates a connection that presented no token on the upgrade (browsers).
    case auth(token: String)
    /// Lists the scenario catalogue.
    case scenarios
    /// Starts a SOLO session.
    case startSolo(scenarioId: String)
    /// Starts a shared session and becomes its host.
    case host(scenarioId: String, maxPlayers: Int?)
    /// Joins a shared session by its code.
    case join(code: String)
    /// Takes a held seat back after a dropped connection.
    case resume(resumeToken: String, lastSeq: Int)
    /// Speaks a line. `clientId` (1–64 bytes, optional) is the client's own id for the line: a
    /// line sent again with the same id (after a failover) is refused as `duplicate_line`
    /// instead of recorded twice.
    case say(textNative: String, textTranslated: String, clientId: String? = nil)
    /// Corrects another participant's line.
    case recast(lineId: String, correctedText: String, explanation: String?, issueTypes: [RecastIssueType])
    /// Accepts a correction of one's own line.
    case acceptRecast(recastId: String)
    /// Leaves the session for good.
    case leave
    /// Ends the session (host or solo player).
    case end
    /// Application-level ping; answered with `pong`.
    case ping
    /// Reads one's own profile; answered with `profile`.
    case profile
    /// Changes fields of one's own profile (all but `isPremium`); answered with `profile`.
    /// `profile` is the JSON object of the changed fields, as sent; the server validates it.
    case updateProfile(profile: Data)
    /// Lists one's own history, most recent first (premium); answered with `history`.
    case history(limit: Int?, before: Int64?)
    /// Reads one entry of one's own history with its transcript (premium); answered with `historySession`.
    case historySession(sessionId: String)

    /// The wire name of the request.
    public var type: String { kind.rawValue }

    /// The message type of the request.
    public var kind: ClientMessageType {
        switch self {
        case .hello: .hello
        case .auth: .auth
        case .scenarios: .scenarios
        case .startSolo: .startSolo
        case .host: .host
        case .join: .join
        case .resume: .resume
        case .say: .say
        case .recast: .recast
        case .acceptRecast: .acceptRecast
        case .leave: .leave
        case .end: .end
        case .ping: .ping
        case .profile: .profile
        case .updateProfile: .updateProfile
        case .history: .history
        case .historySession: .historySession
        }
    }
}
