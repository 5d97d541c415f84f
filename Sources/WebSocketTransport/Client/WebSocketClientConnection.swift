import NIOCore
import WebSocket

/// A client connection whose incoming messages arrive as an `AsyncStream`.
public struct WebSocketClientConnection: Sendable {
    /// What arrives on the connection.
    public enum Event: Sendable, Equatable {
        /// A message.
        case message(WebSocketMessage)
        /// The connection closed (`code` nil: no close frame; 1006 semantics).
        case closed(code: WebSocketCloseCode?, reason: String)
    }

    /// The underlying socket, for sending and closing.
    public let socket: WebSocketSocket
    /// Incoming messages, then one `.closed`, then the end of the stream.
    public let events: AsyncStream<Event>

    /// Sends a message.
    public func send(_ message: WebSocketMessage) { socket.send(message) }
    /// Sends a text message.
    public func send(text: String) { socket.send(text: text) }
    /// Starts the close handshake.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") { socket.close(code: code, reason: reason) }
}

