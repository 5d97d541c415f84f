import Foundation
import HubDomain
import Logging
import NIOCore
import Synchronization
import WebSocket
import WebSocketTransport

/// One `/admin/feed` connection: waits for `auth`, then belongs to the ``DashboardFeed`` until
/// it closes. Later messages are ignored; binary ones close it (1003).
final class DashboardFeedEndpoint: WebSocketEndpoint {
    private let feed: DashboardFeed
    private var admitted = false
    private var authenticated = false
    private var authTimer: Scheduled<Void>?

    init(feed: DashboardFeed) {
        self.feed = feed
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        switch feed.admit(socket) {
        case .refused(let refusal):
            feed.console.logger.info("connection refused", metadata: ["conn": "\(socket.id)", "code": "\(refusal.code.rawValue)",
                                                                      "endpoint": "dashboard"])
            socket.close(code: refusal.code, reason: refusal.reason)
            return
        case .admitted(let evicted):
            if let evicted {
                feed.console.logger.info("connection refused", metadata: [
                    "conn": "\(evicted.socket.id)", "code": "\(evicted.refusal.code.rawValue)", "endpoint": "dashboard",
                ])
                evicted.socket.close(code: evicted.refusal.code, reason: evicted.refusal.reason)
            }
        }
        admitted = true
        authTimer = socket.eventLoop.scheduleTask(in: feed.settings.authTimeout) {
            socket.close(code: .policyViolation, reason: "auth_timeout: no auth message in time")
        }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        guard admitted, !authenticated else { return }
        guard case .text(let buffer) = message else {
            socket.close(code: .unsupportedData, reason: "binary messages are not supported; send JSON text")
            return
        }
        authTimer?.cancel()
        authTimer = nil
        switch feed.authenticate(String(buffer: buffer)).flatMap({ claims in
            feed.takePlace(socket).map { Result.failure($0) } ?? .success(claims)
        }) {
        case .success(let claims):
            authenticated = true
            feed.subscribe(socket, claims: claims)
        case .failure(let refusal):
            admitted = false
            feed.release(socket)
            feed.console.logger.info("connection refused", metadata: [
                "conn": "\(socket.id)", "code": "\(refusal.reason.prefix { $0 != ":" })", "endpoint": "dashboard",
            ])
            socket.close(code: refusal.code, reason: refusal.reason)
        }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        authTimer?.cancel()
        authTimer = nil
        if admitted {
            admitted = false
            feed.release(socket)
        }
    }
}
