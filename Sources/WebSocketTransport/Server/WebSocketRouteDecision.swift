import NIOHTTP1

/// What a ``WebSocketRouter`` decides for a valid upgrade request.
public enum WebSocketRouteDecision {
    /// Upgrade, and hand the connection to `endpoint`.
    case accept(any WebSocketEndpoint, WebSocketRouteOptions)
    /// Refuse with an HTTP status and a short reason (sent as the body, never the connection).
    case reject(HTTPResponseStatus, String)
}
