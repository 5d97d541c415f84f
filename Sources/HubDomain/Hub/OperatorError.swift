/// Why an operator action was refused.
public enum OperatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No live session has this id.
    case unknownSession(String)
    /// The session has no participant holding a seat with this user id.
    case unknownParticipant(sessionId: String, userId: String)
    /// The session is already ending (another end, the goal, the last player leaving or a
    /// shutdown got there first).
    case sessionEnding(String)

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .unknownSession, .unknownParticipant: return "not_found"
        case .sessionEnding: return "session_ended"
        }
    }

    /// A human message (ids cut to 64 characters).
    public var description: String {
        switch self {
        case .unknownSession(let id):
            return "no live session \(id.prefix(64))"
        case .unknownParticipant(let sessionId, let userId):
            return "no participant \(userId.prefix(64)) holds a seat in session \(sessionId.prefix(64))"
        case .sessionEnding(let id):
            return "session \(id.prefix(64)) is already ending"
        }
    }
}
