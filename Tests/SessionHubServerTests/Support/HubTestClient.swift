import Foundation
import NIOCore
import NIOPosix
import WebSocket
import WebSocketTransport

/// A player on the hub's `/ws` endpoint for integration tests: our own WebSocket client, with
/// received messages buffered and `next()` bounded by a timeout so a missing message fails the
/// test instead of hanging it.
actor HubTestClient {
    enum Received: Sendable, Equatable {
        case text(String)
        case closed(WebSocketCloseCode?, String)
    }

    let connection: WebSocketClientConnection
    private var buffer: [Received] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<Received?, Never>)?
    private var waiterCounter = 0

    init(connection: WebSocketClientConnection) {
        self.connection = connection
    }

    /// Connects to `/ws` with `?token=` (or no token).
    static func connect(port: Int, token: String?) async throws -> HubTestClient {
        let query = token.map { "?token=\($0)" } ?? ""
        let connection = try await WebSocketClient.connect(
            to: WebSocketURL(parsing: "ws://127.0.0.1:\(port)/ws\(query)"),
            configuration: WebSocketClientConfiguration(),
            group: MultiThreadedEventLoopGroup.singleton)
        let client = HubTestClient(connection: connection)
        await client.startReading()
        return client
    }

    private func startReading() {
        let events = connection.events
        Task { [weak self] in
            for await event in events {
                switch event {
                case .message(.text(let buffer)): await self?.push(.text(String(buffer: buffer)))
                case .message(.binary): break
                case .closed(let code, let reason): await self?.push(.closed(code, reason))
                }
            }
        }
    }

    private func push(_ item: Received) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: item)
        } else {
            buffer.append(item)
        }
    }

    /// The next thing received, or nil after `seconds`.
    func next(seconds: Double = 5) async -> Received? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        waiterCounter += 1
        let id = waiterCounter
        return await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(seconds))
                await self?.timeOut(id)
            }
        }
    }

    private func timeOut(_ id: Int) {
        if let waiter, waiter.id == id {
            self.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }

    /// The next JSON message (skipping `stats` updates unless asked for), as a dictionary.
    func nextMessage(skippingStats: Bool = true, seconds: Double = 5) async -> JSONObject? {
        while let item = await next(seconds: seconds) {
            guard case .text(let text) = item, let object = JSONObject(text) else { return nil }
            if skippingStats, object.type == "stats" { continue }
            return object
        }
        return nil
    }

    /// The next message of `type` (others are skipped), or nil.
    func expect(_ type: String, seconds: Double = 5) async -> JSONObject? {
        while let message = await nextMessage(skippingStats: type != "stats", seconds: seconds) {
            if message.type == type { return message }
        }
        return nil
    }

    /// Sends a JSON object.
    nonisolated func send(_ object: [String: any Sendable]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object), let text = String(data: data, encoding: .utf8) else { return }
        connection.send(text: text)
    }

    /// Sends raw text.
    nonisolated func send(raw text: String) {
        connection.send(text: text)
    }

    /// Closes the TCP connection without a close handshake (a dropped phone).
    nonisolated func drop() {
        connection.close(code: .goingAway, reason: "drop")
    }
}

/// A parsed JSON object with typed accessors for tests.
struct JSONObject: @unchecked Sendable {
    let raw: [String: Any]
    let text: String

    init?(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        self.raw = object
        self.text = text
    }

    init(_ raw: [String: Any]) {
        self.raw = raw
        self.text = ""
    }

    var type: String? { raw["type"] as? String }
    subscript(_ key: String) -> Any? { raw[key] }
    func string(_ key: String) -> String? { raw[key] as? String }
    func int(_ key: String) -> Int? { (raw[key] as? NSNumber)?.intValue }
    func object(_ key: String) -> JSONObject? { (raw[key] as? [String: Any]).map(JSONObject.init) }
    func objects(_ key: String) -> [JSONObject] { (raw[key] as? [[String: Any]] ?? []).map(JSONObject.init) }
}
