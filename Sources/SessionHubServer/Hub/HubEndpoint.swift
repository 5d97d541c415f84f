import HubDomain
import NIOCore
import WebSocket
import WebSocketTransport

/// The `/ws` endpoint of one connection: hands every text message, in order, to the
/// connection's worker, which authenticates the connection and talks to the hub; binary
/// messages are refused (1003).
final class HubEndpoint: WebSocketEndpoint {
    private let runtime: HubRuntime
    /// The outcome of checking the token presented on the upgrade; nil when none was presented
    /// (and once the connection opened: the worker has the claims then).
    private var upgradeAuth: Result<TokenClaims, AuthError>?
    /// The client's address as an opaque key (see ``HubWebSocketRouter``), or nil.
    private let clientAddress: String?
    /// Set when the connection opens (unless refused there).
    private var worker: HubConnectionWorker?
    private var authTimer: Scheduled<Void>?

    init(runtime: HubRuntime, upgradeAuth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
        self.runtime = runtime
        self.upgradeAuth = upgradeAuth
        self.clientAddress = clientAddress
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        let upgradeAuth = self.upgradeAuth
        self.upgradeAuth = nil
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
