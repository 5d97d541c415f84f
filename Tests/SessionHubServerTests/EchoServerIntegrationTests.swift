import Logging
import NIOCore
import NIOPosix
import SessionHubServer
import Testing
import WebSocket
import WebSocketTransport

/// The real server on an ephemeral loopback port, real sockets, our own client.
@Suite struct EchoServerIntegrationTests {
    static func withServer(
        maxMessageSize: Int = 1 << 20,
        compression: Bool = true,
        _ body: (Int) async throws -> Void
    ) async throws {
        let hub = try HubServer(configuration: HubServerConfiguration(
            port: 0, enableEcho: true, enableRooms: true, maxMessageSize: maxMessageSize, compression: compression, threads: 2,
            secret: Array("test-secret".utf8)))
        let port = try await hub.start()
        do {
            try await body(port)
        } catch {
            await hub.shutdown()
            throw error
        }
        await hub.shutdown()
    }

    static func connect(_ port: Int, path: String = "/echo", compression: Bool = true) async throws -> WebSocketClientConnection {
        var settings = WebSocketClientConfiguration(configuration: WebSocketConfiguration(maxMessageSize: 8 << 20))
        settings.compression.isEnabled = compression
        return try await WebSocketClient.connect(
            to: WebSocketURL(parsing: "ws://127.0.0.1:\(port)\(path)"), configuration: settings,
            group: MultiThreadedEventLoopGroup.singleton)
    }

    /// The next event, or nil after 5 s.
    static func next(_ iterator: inout AsyncStream<WebSocketClientConnection.Event>.Iterator) async -> WebSocketClientConnection.Event? {
        await iterator.next()
    }

    @Test(arguments: [true, false])
    func echoesTextAndBinaryOfManySizes(compression: Bool) async throws {
        try await Self.withServer { port in
            let client = try await Self.connect(port, compression: compression)
            #expect((client.socket.compression != nil) == compression)
            var events = client.events.makeAsyncIterator()
            for size in [0, 1, 125, 126, 65535, 65536, 500_000] {
                let text = String(repeating: "añ😀", count: size / 7 + 1)
                client.send(text: text)
                #expect(await Self.next(&events) == .message(.text(text)))
                let binary = ByteBuffer(bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                client.send(.binary(binary))
                #expect(await Self.next(&events) == .message(.binary(binary)))
            }
            client.close(code: WebSocketCloseCode(4321), reason: "done")
            #expect(await Self.next(&events) == .closed(code: WebSocketCloseCode(4321), reason: ""))
        }
    }

    @Test func oversizeMessageIsRefusedWith1009() async throws {
        try await Self.withServer(maxMessageSize: 1000) { port in
            let client = try await Self.connect(port, compression: false)
            var events = client.events.makeAsyncIterator()
            client.send(text: String(repeating: "x", count: 1000))
            #expect(await Self.next(&events) == .message(.text(String(repeating: "x", count: 1000))))
            client.send(text: String(repeating: "x", count: 1001))
            guard case .closed(let code, _) = await Self.next(&events) else { Issue.record("not closed"); return }
            #expect(code == .messageTooBig)
        }
    }

    @Test func compressedBombIsRefusedWith1009() async throws {
        try await Self.withServer(maxMessageSize: 64 * 1024) { port in
            let client = try await Self.connect(port, compression: true)
            var events = client.events.makeAsyncIterator()
            // Compresses to a few hundred bytes; inflates past the limit.
            client.send(text: String(repeating: "a", count: 4 << 20))
            guard case .closed(let code, _) = await Self.next(&events) else { Issue.record("not closed"); return }
            #expect(code == .messageTooBig)
        }
    }

    @Test func roomRelayDeliversToEveryMemberIncludingTheSender() async throws {
        try await Self.withServer { port in
            let members = try await withThrowingTaskGroup(of: WebSocketClientConnection.self) { group in
                for _ in 0..<3 { group.addTask { try await Self.connect(port, path: "/room/alpha", compression: false) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let outsider = try await Self.connect(port, path: "/room/beta", compression: false)
            try await Task.sleep(nanoseconds: 100_000_000)  // joins happen on open; let them land
            members[0].send(text: "one")
            members[1].send(.binary(ByteBuffer(bytes: [1])))  // binary is ignored by the relay
            members[2].send(text: "two")
            for member in members {
                var events = member.events.makeAsyncIterator()
                var got: [String] = []
                for _ in 0..<2 {
                    if case .message(let message) = await Self.next(&events) { got.append(message.string) }
                }
                #expect(got.sorted() == ["one", "two"])
            }
            outsider.send(text: "beta only")
            var outsiderEvents = outsider.events.makeAsyncIterator()
            #expect(await Self.next(&outsiderEvents) == .message(.text("beta only")))
        }
    }

    @Test func disabledEndpointsAreRefused() async throws {
        let hub = try HubServer(configuration: HubServerConfiguration(port: 0, threads: 1, secret: Array("test-secret".utf8)))
        let port = try await hub.start()
        await #expect(throws: WebSocketClientError.self) {
            _ = try await Self.connect(port)
        }
        await hub.shutdown()
    }

    @Test func shutdownClosesClientsWith1001() async throws {
        let hub = try HubServer(configuration: HubServerConfiguration(port: 0, enableEcho: true, threads: 1, secret: Array("test-secret".utf8)))
        let port = try await hub.start()
        let client = try await Self.connect(port)
        var events = client.events.makeAsyncIterator()
        async let shutdown: Void = hub.shutdown()
        guard case .closed(let code, _) = await Self.next(&events) else { Issue.record("not closed"); return }
        #expect(code == .goingAway)
        await shutdown
    }
}
