import HubDomain
import NIOCore
import WebSocket
import WebSocketTransport

/// The `/ws` endpoint of one connection: hands every text message, in order, to the
/// connection's worker, which authenticates the connection and talks to the hub; binary
/// messages are refused (1003).
final class HubEndpoint: WebSocketEndpoint {
    /// What the upgrade learnt, kept until the connection opens (boxed, so an open connection
    /// keeps a nil pointer rather than room for the claims).
    private final class Upgrade {
        /// The outcome of checking the token presented on the upgrade; nil when none was presented.
        let auth: Result<TokenClaims, AuthError>?
        /// The client's address as an opaque key (see ``HubWebSocketRouter``), or nil.
        let clientAddress: String?

        init(auth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
            self.auth = auth
            self.clientAddress = clientAddress
        }
    }

    private let runtime: HubRuntime
    /// Until the connection opens.
    private var upgrade: Upgrade?
    /// Set when the connection opens (unless refused there).
    private var worker: HubConnectionWorker?
    private var authTimer: Scheduled<Void>?

    init(runtime: HubRuntime, upgradeAuth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
        self.runtime = runtime
        self.upgrade = Upgrade(auth: upgradeAuth, clientAddress: clientAddress)
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        let upgradeAuth = upgrade?.auth, clientAddress = upgrade?.clientAddress
        upgrade = nil
        if case .failure(let error) = upgradeAuth {
            runtime.logger.info("connection refused", metadata: ["conn": "\(socket.id)", "code": "\(error.code)"])
            socket.close(code: .policyViolation, reason: "\(error.code): \(error)")
            return
        }
        let worker = HubConnectionWorker(socket: socket, runtime: runtime, clientAddress: clientAddress)
        self.worker = worker
        if case .success(let claims) = upgradeAuth {
            worker.yield(.upgradeAuthenticated(claims))
        } else {
            authTimer = socket.eventLoop.scheduleTask(in: .seconds(runtime.limits.authTimeoutSeconds)) {
                worker.yield(.authTimeout)
            }
        }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        switch message {
        case .text(let buffer):
            worker?.yield(.text(String(buffer: buffer)))
        case .binary:
            socket.close(code: .unsupportedData, reason: "binary messages are not supported; send JSON text")
        }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        authTimer?.cancel()
        authTimer = nil
        worker?.yield(.closed)
    }
}
