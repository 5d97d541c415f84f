import HubProtocol

/// Why a ``SessionHubClient`` call failed.
public enum SessionHubClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The hub refused the request: its stable `code` (docs/PROTOCOL.md, section 9), its message,
    /// and, for some codes, when to try again.
    case refused(code: String, message: String, retryAfter: Int?)
    /// Another node of the cluster owns the session (`session_elsewhere`): `url` is where to go;
    /// without one, the session is between owners and `retryAfter` says when to try again. The
    /// client follows these by itself; it throws this only when it gave up following.
    case elsewhere(node: String?, url: String?, retryAfter: Int?)
    /// There is no open connection (not connected yet, or it closed).
    case notConnected
    /// The connection closed before the answer came (the request may or may not have been done).
    case connectionClosed(code: Int?, reason: String)
    /// No answer within the request timeout.
    case timedOut(request: String)
    /// The call needs a session and the client is in none (or needs the lobby and is in one).
    case wrongState(String)
    /// The connection could not be opened, or the hub's answer was not understood.
    case transport(String)

    public var description: String {
        switch self {
        case .refused(let code, let message, let retryAfter):
            "refused: \(code): \(message)" + (retryAfter.map { " (retry after \($0) s)" } ?? "")
        case .elsewhere(let node, let url, let retryAfter):
            "the session is on another node" + (node.map { " (\($0))" } ?? "") + (url.map { ": \($0)" } ?? "")
                + (retryAfter.map { ", retry after \($0) s" } ?? "")
        case .notConnected: "not connected"
        case .connectionClosed(let code, let reason): "connection closed (\(code.map(String.init) ?? "no close frame")) \(reason)"
        case .timedOut(let request): "no answer to \(request) in time"
        case .wrongState(let why): why
        case .transport(let why): why
        }
    }

    /// The refusal of an `error` reply.
    init(_ reply: ServerMessage.ErrorReply) {
        if reply.code == "session_elsewhere" {
            self = .elsewhere(node: reply.node, url: reply.url, retryAfter: reply.retryAfter)
        } else {
            self = .refused(code: reply.code, message: reply.message, retryAfter: reply.retryAfter)
        }
    }
}
