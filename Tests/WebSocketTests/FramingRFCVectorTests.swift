import NIOCore
import Testing
@testable import WebSocket

/// RFC 6455 §5.7 examples, byte for byte.
@Suite struct FramingRFCVectorTests {
    @Test func unmaskedHelloFromServer() throws {
        var client = WebSocketConnection(role: .client)
        let events = feed(&client, [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(events.count == 1)
        #expect(events.first?.messageBytes == Array("Hello".utf8))
        if case .text = events.first {} else { Issue.record("expected text") }
    }

    @Test func maskedHelloFromClient() {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(events.first?.messageBytes == Array("Hello".utf8))
    }

    @Test func maskedEncodingMatchesRFC() {
        let bytes = clientFrameBytes(.text, Array("Hello".utf8))
        #expect(bytes == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func fragmentedUnmaskedText() {
        var client = WebSocketConnection(role: .client)
        let events = feed(&client, [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
        #expect(events.map(\.messageBytes) == [Array("Hello".utf8)])
    }

    @Test func unmaskedPingAndMaskedPong() {
        var client = WebSocketConnection(role: .client)
        let events = feed(&client, [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(events == [.ping(ByteBuffer(string: "Hello"))])
        var server = WebSocketConnection(role: .server)
        let pong = feed(&server, [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(pong == [.pong(ByteBuffer(string: "Hello"))])
    }

    @Test func binary256And64KiBLengthEncodings() {
        let h256 = FrameHeader(opcode: .binary, payloadLength: 256)
        var buffer = ByteBuffer()
        FrameEncoder.writeHeader(h256, into: &buffer)
        #expect(Array(buffer.readableBytesView) == [0x82, 0x7E, 0x01, 0x00])
        buffer.clear()
        FrameEncoder.writeHeader(FrameHeader(opcode: .binary, payloadLength: 65536), into: &buffer)
        #expect(Array(buffer.readableBytesView) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func serverFramesAreNeverMasked() {
        var server = WebSocketConnection(role: .server)
        let frame = server.send(.text, payload: ByteBuffer(string: "hi"))
        #expect(frame.map { Array($0.readableBytesView) } == [0x81, 0x02, 0x68, 0x69])
    }
}
