import NIOCore
import WebSocket

/// Feeds a connection's callbacks into an `AsyncStream`.
final class StreamingEndpoint: WebSocketEndpoint, Sendable {
    private let continuation: AsyncStream<WebSocketClientConnection.Event>.Continuation

    init(continuation: AsyncStream<WebSocketClientConnection.Event>.Continuation) {
        self.continuation = continuation
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        continuation.yield(.message(message))
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }
}
