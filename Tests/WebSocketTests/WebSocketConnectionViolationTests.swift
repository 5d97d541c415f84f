import NIOCore
import Testing
@testable import WebSocket

/// Every protocol violation fails with its exact close code, and the close frame is queued.
@Suite struct WebSocketConnectionViolationTests {
    /// Feeds `bytes` to a fresh server connection and returns the failure code and the close
    /// code the server queued for the peer.
    func failure(_ bytes: [UInt8], configuration: WebSocketConfiguration = .default, chunk: Int = .max) -> (UInt16?, UInt16?) {
        var server = WebSocketConnection(role: .server, configuration: configuration)
        let events = feed(&server, bytes, chunkSizes: [chunk])
        let code = events.compactMap(\.failureCode).first
        let sent = serverFrames(server.takePendingOutput()).first { $0.0 == .close }
        let sentCode = sent.flatMap { $0.1.count >= 2 ? UInt16($0.1[0]) << 8 | UInt16($0.1[1]) : nil }
        return (code, sentCode)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8])
    func reservedOpcodes(opcode: UInt8) {
        let result = failure([0x80 | opcode, 0x80, 1, 2, 3, 4])
        #expect(result.0 == 1002 && result.1 == 1002)
    }

    @Test(arguments: [0x40, 0x20, 0x10] as [UInt8])
    func reservedBitsWithoutExtension(bit: UInt8) {
        var bytes = clientFrameBytes(.text, Array("x".utf8))
        bytes[0] |= bit
        #expect(failure(bytes).0 == 1002)
    }

    @Test func unmaskedClientFrame() {
        #expect(failure([0x81, 0x02, 0x68, 0x69]) == (1002, 1002))
    }

    @Test func maskedServerFrameAtClient() {
        var client = WebSocketConnection(role: .client)
        let events = feed(&client, clientFrameBytes(.text, [0x61]))
        #expect(events.compactMap(\.failureCode) == [1002])
    }

    @Test func fragmentedControlFrame() {
        #expect(failure(clientFrameBytes(.ping, [1, 2], fin: false)).0 == 1002)
    }

    @Test func controlFrameOver125Bytes() {
        #expect(failure(clientFrameBytes(.ping, [UInt8](repeating: 0, count: 126))).0 == 1002)
    }

    @Test func continuationWithoutStart() {
        #expect(failure(clientFrameBytes(.continuation, [0x61])).0 == 1002)
    }

    @Test func newMessageDuringFragmentedMessage() {
        let bytes = clientFrameBytes(.text, [0x61], fin: false) + clientFrameBytes(.text, [0x62])
        #expect(failure(bytes).0 == 1002)
    }

    @Test func invalidUTF8FailsWith1007() {
        #expect(failure(clientFrameBytes(.text, [0xCE, 0xBA, 0xED, 0xA0, 0x80])).0 == 1007)
    }

    @Test func invalidUTF8FailsFastBeforeTheMessageEnds() {
        var server = WebSocketConnection(role: .server)
        // First fragment invalid, message unfinished: must fail now, not at the end.
        var events = feed(&server, clientFrameBytes(.text, [0x61, 0xFF], fin: false))
        #expect(events.compactMap(\.failureCode) == [1007])
        // Within a single frame whose tail has not arrived yet.
        server = WebSocketConnection(role: .server)
        let frame = clientFrameBytes(.text, [0x61, 0x62, 0xC0, 0x80] + [UInt8](repeating: 0x61, count: 200))
        events = feed(&server, Array(frame.prefix(12)))
        #expect(events.compactMap(\.failureCode) == [1007])
    }

    @Test func truncatedUTF8AtMessageEnd() {
        let bytes = clientFrameBytes(.text, [0x61, 0xE2, 0x82], fin: false) + clientFrameBytes(.continuation, [])
        #expect(failure(bytes).0 == 1007)
    }

    @Test func codePointSplitAcrossFragmentsIsFine() {
        var server = WebSocketConnection(role: .server)
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let events = feed(&server, clientFrameBytes(.text, [euro[0]], fin: false)
            + clientFrameBytes(.continuation, [euro[1]], fin: false) + clientFrameBytes(.continuation, [euro[2]]))
        #expect(events.map(\.messageBytes) == [euro])
    }

    @Test func nonMinimalLengths() {
        #expect(failure([0x82, 0xFE, 0x00, 0x05, 1, 2, 3, 4, 0, 0, 0, 0, 0]).0 == 1002)
        #expect(failure([0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 1, 2, 3, 4]).0 == 1002)
    }

    @Test func topBitOf64BitLength() {
        #expect(failure([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4]).0 == 1002)
    }

    @Test func hugeAnnouncedLengthFailsBeforeAnyPayload() {
        // 2^62 bytes announced: refused from the header alone (gorilla CVE-2020-27813 shape).
        #expect(failure([0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]).0 == 1009)
    }

    @Test func messageOverLimitAcrossFragments() {
        let config = WebSocketConfiguration(maxMessageSize: 100)
        let bytes = clientFrameBytes(.binary, [UInt8](repeating: 1, count: 60), fin: false)
            + clientFrameBytes(.continuation, [UInt8](repeating: 1, count: 41))
        #expect(failure(bytes, configuration: config).0 == 1009)
        let exact = clientFrameBytes(.binary, [UInt8](repeating: 1, count: 60), fin: false)
            + clientFrameBytes(.continuation, [UInt8](repeating: 1, count: 40))
        #expect(failure(exact, configuration: config).0 == nil)
    }

    @Test func tooManyFragments() {
        let config = WebSocketConfiguration(maxMessageSize: 1000, maxFragmentsPerMessage: 4)
        var bytes = clientFrameBytes(.binary, [1], fin: false)
        for _ in 0..<4 { bytes += clientFrameBytes(.continuation, [1], fin: false) }
        #expect(failure(bytes, configuration: config).0 == 1009)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func invalidCloseCodes(code: UInt16) {
        #expect(failure(clientFrameBytes(.close, [UInt8(code >> 8), UInt8(code & 0xFF)])).0 == 1002)
    }

    @Test func oneByteClosePayload() {
        #expect(failure(clientFrameBytes(.close, [0x03])).0 == 1002)
    }

    @Test func invalidUTF8CloseReason() {
        #expect(failure(clientFrameBytes(.close, [0x03, 0xE8, 0xFF])).0 == 1007)
    }
}
