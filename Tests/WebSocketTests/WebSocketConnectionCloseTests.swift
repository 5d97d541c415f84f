import NIOCore
import Testing
@testable import WebSocket

@Suite struct WebSocketConnectionCloseTests {
    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as [UInt16])
    func peerCloseIsEchoedAndServerClosesTCP(code: UInt16) {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, clientFrameBytes(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)))
        #expect(events == [.closed(code: WebSocketCloseCode(code), reason: "bye", initiatedByPeer: true)])
        let output = server.takePendingOutput()
        let reply = serverFrames(output)
        #expect(reply.count == 1)
        #expect(reply.first?.0 == .close)
        #expect(reply.first?.1 == [UInt8(code >> 8), UInt8(code & 0xFF)])
        #expect(server.closeState == .closed)
        #expect(server.shouldCloseTransport)
    }

    @Test func emptyCloseGetsEmptyReply() {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, clientFrameBytes(.close, []))
        #expect(events == [.closed(code: nil, reason: "", initiatedByPeer: true)])
        let output = server.takePendingOutput()
        #expect(serverFrames(output).first?.1 == [])
    }

    @Test func weCloseThenPeerReplies() throws {
        var server = WebSocketConnection(role: .server)
        let sent = server.close(code: .goingAway, reason: "shutting down")
        let frame = try #require(sent)
        #expect(serverFrames(frame).first?.1.prefix(2) == [0x03, 0xE9])
        #expect(server.closeState == .closeSent)
        let late = server.send(.text, payload: ByteBuffer(string: "late"))
        let again = server.close()
        #expect(late == nil && again == nil)
        // Data after our close is discarded; the peer's close completes the handshake.
        let events = feed(&server, clientFrameBytes(.text, [0x61]) + clientFrameBytes(.close, [0x03, 0xE9]))
        #expect(events == [.closed(code: .goingAway, reason: "", initiatedByPeer: false)])
        #expect(!server.hasPendingOutput)
        #expect(server.shouldCloseTransport)
    }

    @Test func framesAfterCloseAreIgnored() {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, clientFrameBytes(.close, [0x03, 0xE8]) + clientFrameBytes(.text, [0x61]) + [0xFF, 0xFF])
        #expect(events.count == 1)
    }

    @Test func clientWaitsForServerToCloseTCP() {
        var client = WebSocketConnection(role: .client)
        let sent = client.close()
        #expect(sent != nil)
        let events = feed(&client, [0x88, 0x02, 0x03, 0xE8])
        #expect(events == [.closed(code: .normalClosure, reason: "", initiatedByPeer: false)])
        #expect(!client.shouldCloseTransport)
    }

    @Test func pingIsAnsweredWithSamePayload() {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, clientFrameBytes(.ping, Array("abc".utf8)))
        #expect(events == [.ping(ByteBuffer(string: "abc"))])
        let output = server.takePendingOutput()
        let out = serverFrames(output)
        #expect(out.count == 1 && out[0].0 == .pong && out[0].1 == Array("abc".utf8))
    }

    @Test func controlFramesBetweenFragments() {
        var server = WebSocketConnection(role: .server)
        let bytes = clientFrameBytes(.text, Array("Hel".utf8), fin: false) + clientFrameBytes(.ping, [1])
            + clientFrameBytes(.pong, [2]) + clientFrameBytes(.continuation, Array("lo".utf8))
        let events = feed(&server, bytes, chunkSizes: [1])
        #expect(events.count == 3)
        #expect(events.last?.messageBytes == Array("Hello".utf8))
    }

    @Test func closeReasonIsTruncatedAtACharacterBoundary() throws {
        var server = WebSocketConnection(role: .server)
        let sent = server.close(code: .normalClosure, reason: String(repeating: "é", count: 100))
        let frame = try #require(sent)
        let payload = try #require(serverFrames(frame).first?.1)
        #expect(payload.count <= 125)
        #expect(String(validating: payload.dropFirst(2), as: UTF8.self) != nil)
    }

    @Test func receivedMessagesHaveHeadroomForZeroCopyEcho() throws {
        var server = WebSocketConnection(role: .server)
        let events = feed(&server, clientFrameBytes(.text, Array("echo".utf8)))
        guard case .text(let message) = events.first else { Issue.record("no text"); return }
        #expect(message.readerIndex >= 14)
        let sent = server.send(.text, payload: message)
        let frame = try #require(sent)
        #expect(Array(frame.readableBytesView) == [0x81, 0x04] + Array("echo".utf8))
    }
}
