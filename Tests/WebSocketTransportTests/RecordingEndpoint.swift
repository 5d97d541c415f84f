import NIOCore
import NIOEmbedded
import WebSocket
import WebSocketTransport

/// Records every callback; optionally echoes messages.
final class RecordingEndpoint: WebSocketEndpoint {
    var opened = 0
    var messages: [WebSocketMessage] = []
    var closes: [(WebSocketCloseCode?, String)] = []
    var echo: Bool
    var socket: WebSocketSocket?

    init(echo: Bool = false) { self.echo = echo }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        opened += 1
        self.socket = socket
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        messages.append(message)
        if echo { socket.send(message) }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        closes.append((code, reason))
    }
}

/// A masked client frame, as bytes in a buffer.
func maskedFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> ByteBuffer {
    FrameEncoder.clientFrame(opcode: opcode, payload: ByteBuffer(bytes: payload), key: WebSocketMaskKey(1, 2, 3, 4), fin: fin)
}

/// Reads every frame the server side wrote to an embedded channel.
func writtenFrames(_ channel: EmbeddedChannel) throws -> [(WebSocketOpcode, [UInt8])] {
    var all = ByteBuffer()
    while var chunk = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
    let parser = FrameHeaderParser(role: .client, allowsCompression: true, maxFrameSize: .max)
    var frames: [(WebSocketOpcode, [UInt8])] = []
    while case .header(let header) = parser.parse(&all) {
        frames.append((header.opcode, all.readBytes(length: header.payloadLength) ?? []))
    }
    return frames
}
