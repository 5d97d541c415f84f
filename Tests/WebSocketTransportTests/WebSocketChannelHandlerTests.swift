import Logging
import NIOCore
import NIOEmbedded
import Testing
import WebSocket
@testable import WebSocketTransport

@Suite struct WebSocketChannelHandlerTests {
    func makeChannel(_ endpoint: RecordingEndpoint, configuration: WebSocketConfiguration = .default,
                     backpressure: WebSocketBackpressure = .default,
                     statistics: WebSocketStatistics? = nil) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let handler = WebSocketChannelHandler(
            connection: WebSocketConnection(role: .server, configuration: configuration),
            endpoint: endpoint, id: 1, backpressure: backpressure, statistics: statistics, logger: Logger(label: "test"))
        try channel.pipeline.syncOperations.addHandler(handler)
        return channel
    }

    @Test func echoesMessagesAndOpensOnce() throws {
        let endpoint = RecordingEndpoint(echo: true)
        let channel = try makeChannel(endpoint)
        try channel.writeInbound(maskedFrame(.text, Array("hello".utf8)))
        try channel.writeInbound(maskedFrame(.binary, [1, 2, 3]))
        let frames = try writtenFrames(channel)
        #expect(endpoint.opened == 1)
        #expect(frames.map(\.0) == [.text, .binary])
        #expect(frames.map(\.1) == [Array("hello".utf8), [1, 2, 3]])
        _ = try? channel.finish()
    }

    @Test func bytesSplitAcrossReadsAssembleOneMessage() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        var frame = maskedFrame(.text, Array("split message".utf8))
        while frame.readableBytes > 0 {
            let piece = frame.readSlice(length: min(3, frame.readableBytes)) ?? ByteBuffer()
            try channel.writeInbound(piece)
        }
        #expect(endpoint.messages == [.text("split message")])
        _ = try? channel.finish()
    }

    @Test func answersPingsWithPongs() throws {
        let channel = try makeChannel(RecordingEndpoint())
        try channel.writeInbound(maskedFrame(.ping, [9, 8, 7]))
        let frames = try writtenFrames(channel)
        #expect(frames.count == 1)
        #expect(frames.first?.0 == .pong)
        #expect(frames.first?.1 == [9, 8, 7])
        _ = try? channel.finish()
    }

    @Test func closeIsEchoedThenTCPCloses() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        try channel.writeInbound(maskedFrame(.close, [0x0F, 0xA0] + Array("done".utf8)))
        let frames = try writtenFrames(channel)
        #expect(frames.first?.0 == .close)
        #expect(frames.first?.1 == [0x0F, 0xA0])
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        #expect(endpoint.closes.count == 1)
        #expect(endpoint.closes.first?.0 == WebSocketCloseCode(4000))
    }

    static let violations: [(ByteBuffer, UInt16)] = [
        (maskedFrame(.continuation, [1]), 1002),
        (FrameEncoder.serverFrame(opcode: .text, payload: ByteBuffer(string: "unmasked")), 1002),
        (maskedFrame(.text, [0xFF]), 1007),
        (maskedFrame(.ping, [1], fin: false), 1002),
    ]

    @Test(arguments: Self.violations)
    func violationsCloseWithTheirCode(frame: ByteBuffer, code: UInt16) throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        try channel.writeInbound(frame)
        let frames = try writtenFrames(channel)
        #expect(frames.last?.0 == .close)
        #expect(frames.last.map { UInt16($0.1[0]) << 8 | UInt16($0.1[1]) } == code)
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        #expect(endpoint.closes.first?.0?.rawValue == code)
    }

    @Test func oversizeMessageCloses1009() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint, configuration: WebSocketConfiguration(maxMessageSize: 10))
        try channel.writeInbound(maskedFrame(.binary, [UInt8](repeating: 0, count: 11)))
        let frames = try writtenFrames(channel)
        #expect(frames.last.map { UInt16($0.1[0]) << 8 | UInt16($0.1[1]) } == 1009)
        #expect(endpoint.messages.isEmpty)
    }

    @Test func preparedFrameIsWrittenUnchangedToEveryChannel() throws {
        let endpoints = (0..<3).map { _ in RecordingEndpoint() }
        let channels = try endpoints.map { try makeChannel($0) }
        let frame = PreparedFrame(text: "broadcast")
        for endpoint in endpoints { endpoint.socket?.send(frame) }
        for channel in channels {
            let frames = try writtenFrames(channel)
            #expect(frames.count == 1)
            #expect(frames.first?.1 == Array("broadcast".utf8))
            _ = try? channel.finish()
        }
    }

    @Test func slowConsumerIsDisconnectedWith1008() throws {
        let endpoint = RecordingEndpoint()
        let statistics = WebSocketStatistics()
        let channel = try makeChannel(endpoint, backpressure: WebSocketBackpressure(lowWatermark: 10, highWatermark: 20, maxQueuedBytes: 100),
                                      statistics: statistics)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        for _ in 0..<20 { endpoint.socket?.send(.text("0123456789")) }
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        #expect(endpoint.closes.first?.0 == .policyViolation)
        // Counted once; what the endpoint still sends after the cut is counted as dropped.
        #expect(statistics.slowConsumerDisconnects == 1)
        #expect(statistics.droppedFrames > 0)
    }

    /// docs/PROTOCOL.md section 2: a silent connection is closed after 60–90 s (two or three
    /// 30 s checks), counted from the upgrade when it never sent anything: the first check only
    /// notes the handshake, the second pings, the third closes.
    @Test func idlePeerGetsPingedThenDropped() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try writtenFrames(channel).isEmpty, "no ping at the first check after the upgrade")
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        let pings = try writtenFrames(channel)
        #expect(pings.map(\.0) == [.ping])
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(!channel.isActive)
        #expect(endpoint.closes.first?.0 == .goingAway)
    }

    /// After a message, silence is counted from that message: pinged at the second check after
    /// it, closed at the third (60–90 s with the default interval).
    @Test func peerSilentAfterAMessageIsDroppedAtTheThirdCheck() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        try channel.writeInbound(maskedFrame(.text, Array("hi".utf8)))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))  // check 1 (30 s): the message was seen
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))  // check 2 (60 s): silent since check 1: ping
        #expect(try writtenFrames(channel).map(\.0) == [.ping])
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))  // check 3 (90 s): still silent: close
        #expect(!channel.isActive)
        #expect(endpoint.closes.first?.0 == .goingAway)
    }

    @Test func serverInitiatedCloseTimesOutWithoutReply() throws {
        let endpoint = RecordingEndpoint()
        let channel = try makeChannel(endpoint)
        endpoint.socket?.close(code: .goingAway, reason: "bye")
        let frames = try writtenFrames(channel)
        #expect(frames.map(\.0) == [.close])
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
    }
}
