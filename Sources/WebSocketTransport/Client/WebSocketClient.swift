import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOPosix
import WebSocket

/// Opens client connections (`ws://`, and `wss://` over TLS) with our own handshake and
/// protocol core: for the client library, the bot, the load test and the interop tests.
public enum WebSocketClient {
    private static let ids = NIOLockedValueBox<UInt64>(1 << 40)

    /// Connects and completes the opening handshake; messages go to the endpoint `makeEndpoint`
    /// creates (on the connection's event loop).
    public static func connect(
        to url: WebSocketURL,
        configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        group: any EventLoopGroup,
        logger: Logger = Logger(label: "sessionhub.ws-client"),
        makeEndpoint: @escaping @Sendable () -> any WebSocketEndpoint
    ) async throws -> WebSocketSocket {
        let offer = configuration.compression.isEnabled
            ? PerMessageDeflateNegotiation.clientOffer(configuration: configuration.compression) : nil
        let handshake = ClientHandshake(host: url.hostHeader, target: url.target, subprotocols: configuration.subprotocols,
                                        extensionOffer: offer, extraHeaders: configuration.headers)
        let id = ids.withLockedValue { value -> UInt64 in
            value += 1
            return value
        }
        let eventLoop = group.next()
        // wss://: TLS under the HTTP upgrade, verifying the server's certificate for the URL's
        // host (sent as SNI unless it is an IP address).
        let tls: NIOSSLContext?
        if url.isSecure {
            do {
                tls = try NIOSSLContext(configuration: configuration.tls)
            } catch {
                throw WebSocketClientError.tls("\(error)")
            }
        } else {
            tls = nil
        }
        let serverName = url.host.isIPAddress ? nil : url.host
        let promise = eventLoop.makePromise(of: WebSocketSocket.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(configuration.connectTimeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                        try sync.addHandler(ClientUpgradeHandler(handshake: handshake, settings: configuration, id: id,
                                                                 makeEndpoint: makeEndpoint, promise: promise, logger: logger))
                    }
                }
                .connect(host: url.host, port: url.port)
                .get()
        } catch {
            // No channel, so no handler will ever complete the promise: fail it here (an
            // abandoned promise is a leak, and a crash in debug builds).
            promise.fail(error)
            throw error
        }
        let timeout = eventLoop.scheduleTask(in: configuration.connectTimeout) {
            promise.fail(ChannelError.connectTimeout(configuration.connectTimeout))
            channel.close(promise: nil)
        }
        defer { timeout.cancel() }
        return try await promise.futureResult.get()
    }

    /// Connects and returns a connection whose incoming messages are an async sequence.
    public static func connect(
        to url: WebSocketURL,
        configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        group: any EventLoopGroup,
        logger: Logger = Logger(label: "sessionhub.ws-client")
    ) async throws -> WebSocketClientConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketClientConnection.Event.self)
        let endpoint = StreamingEndpoint(continuation: continuation)
        let socket = try await connect(to: url, configuration: configuration, group: group, logger: logger) { endpoint }
        return WebSocketClientConnection(socket: socket, events: stream)
    }
}
