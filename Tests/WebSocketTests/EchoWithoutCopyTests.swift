import NIOCore
import Testing
@testable import WebSocket

/// A server connection writes the header of an unchanged reply into each message's headroom, so
/// sending the message back (an echo, a relay) reuses its storage even while the caller still
/// holds it. These tests pin both halves: the bytes on the wire stay right, and no copy is made.
@Suite struct EchoWithoutCopyTests {
    /// The address of a buffer's first readable byte (same storage, same address).
    private func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { $0.baseAddress }
    }

    private func receivedMessage(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws -> (WebSocketConnection, ByteBuffer) {
        var server = WebSocketConnection(role: .server, configuration: WebSocketConfiguration(maxMessageSize: 1 << 20))
        let events = feed(&server, clientFrameBytes(opcode, payload))
        let event = try #require(events.first)
        switch event {
        case .text(let buffer), .binary(let buffer): return (server, buffer)
        default: throw EchoTestFailure.unexpectedEvent
        }
    }

    private enum EchoTestFailure: Error { case unexpectedEvent }

    @Test(arguments: [0, 5, 125, 126, 300, 65_535, 65_536, 70_000])
    func echoedMessageSharesStorageAndIsWellFormed(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var (server, message) = try receivedMessage(.binary, payload)
        let payloadAddress = address(message)
        // `message` stays alive, as it does while an endpoint's callback runs.
        let sent = server.send(.binary, payload: message, compress: false)
        let frame = try #require(sent)
        let headerLength = FrameHeader.encodedLength(payloadLength: length, masked: false)
        #expect(address(frame).map { $0 + headerLength } == payloadAddress, "the frame must reuse the message's storage")
        let frames = serverFrames(frame)
        #expect(frames.count == 1)
        #expect(frames.first?.0 == .binary)
        #expect(frames.first?.1 == payload)
        #expect(Array(message.readableBytesView) == payload, "the message itself is unchanged")
    }

    @Test func textEchoSharesStorage() throws {
        var (server, message) = try receivedMessage(.text, Array("héllo wörld".utf8))
        let sent = server.send(.text, payload: message, compress: false)
        let frame = try #require(sent)
        #expect(address(frame).map { $0 + 2 } == address(message))
        #expect(serverFrames(frame).map(\.1) == [Array("héllo wörld".utf8)])
    }

    @Test func replyOfAnotherTypeIsStillCorrect() throws {
        var (server, message) = try receivedMessage(.text, Array("as binary".utf8))
        let sent = server.send(.binary, payload: message, compress: false)
        let frame = try #require(sent)
        let frames = serverFrames(frame)
        #expect(frames.first?.0 == .binary)
        #expect(frames.first?.1 == Array("as binary".utf8))
        #expect(Array(message.readableBytesView) == Array("as binary".utf8))
    }

    @Test func shortenedMessageGetsItsOwnHeader() throws {
        var (server, message) = try receivedMessage(.text, Array("trim me".utf8))
        message.moveWriterIndex(to: message.writerIndex - 3)
        let sent = server.send(.text, payload: message, compress: false)
        let frame = try #require(sent)
        #expect(serverFrames(frame).map(\.1) == [Array("trim".utf8)])
    }

    @Test func fragmentedMessageIsEchoedWhole() throws {
        var server = WebSocketConnection(role: .server)
        let bytes = clientFrameBytes(.text, Array("frag".utf8), fin: false)
            + clientFrameBytes(.continuation, Array("mented".utf8))
        let events = feed(&server, bytes, chunkSizes: [3])
        guard case .text(let message) = try #require(events.first) else {
            Issue.record("expected a text message")
            return
        }
        let sent = server.send(.text, payload: message, compress: false)
        let frame = try #require(sent)
        #expect(serverFrames(frame).map(\.0) == [.text])
        #expect(serverFrames(frame).map(\.1) == [Array("fragmented".utf8)])
    }

    @Test func holdsHeaderRecognisesOnlyTheExactEncoding() {
        var buffer = ByteBuffer()
        FrameEncoder.writeHeader(FrameHeader(opcode: .text, payloadLength: 300), into: &buffer)
        #expect(FrameEncoder.holdsHeader(FrameHeader(opcode: .text, payloadLength: 300), in: buffer, at: 0))
        #expect(!FrameEncoder.holdsHeader(FrameHeader(opcode: .binary, payloadLength: 300), in: buffer, at: 0))
        #expect(!FrameEncoder.holdsHeader(FrameHeader(opcode: .text, payloadLength: 301), in: buffer, at: 0))
        #expect(!FrameEncoder.holdsHeader(FrameHeader(fin: false, opcode: .text, payloadLength: 300), in: buffer, at: 0))
        #expect(!FrameEncoder.holdsHeader(FrameHeader(rsv1: true, opcode: .text, payloadLength: 300), in: buffer, at: 0))
    }
}
