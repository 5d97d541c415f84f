import HubDomain
import NIOCore
import WebSocket
import WebSocketTransport

/// The `/ws` endpoint of one connection: hands every text message, in order, to the
/// connection's worker, which authenticates the connection and talks to the hub; binary
/// messages are refused (1003).
///
/// Kept small (one reference): an open connection holds it for its whole life.
final class HubEndpoint: WebSocketEndpoint {
    /// What the upgrade learnt, kept until the connection opens.
    private final class Upgrade {
        let runtime: HubRuntime
        /// The outcome of checking the token presented on the upgrade; nil when none was presented.
        let auth: Result<TokenClaims, AuthError>?
        /// The client's address as an opaque key (see ``HubWebSocketRouter``), or nil.
        let clientAddress: String?

        init(runtime: HubRuntime, auth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
            self.runtime = runtime
            self.auth = auth
            self.clientAddress = clientAddress
        }
    }

    private enum Phase {
        /// Upgraded, not yet open.
        case upgrading(Upgrade)
        /// Open, with its worker.
        case open(HubConnectionWorker)
        /// Refused when it opened, or closed.
        case done
    }

    private var phase: Phase

    init(runtime: HubRuntime, upgradeAuth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
        phase = .upgrading(Upgrade(runtime: runtime, auth: upgradeAuth, clientAddress: clientAddress))
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        guard case .upgrading(let upgrade) = phase else { return }
        let runtime = upgrade.runtime
        if case .failure(let error) = upgrade.auth {
            phase = .done
            runtime.logger.info("connection refused", metadata: ["conn": "\(socket.id)", "code": "\(error.code)"])
            socket.close(code: .policyViolation, reason: "\(error.code): \(error)")
            return
        }
        let worker = HubConnectionWorker(socket: socket, runtime: runtime, clientAddress: upgrade.clientAddress)
        phase = .open(worker)
        if case .success(let claims) = upgrade.auth {
            worker.yield(.upgradeAuthenticated(claims))
        } else {
            worker.awaitAuthentication()
        }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        switch message {
        case .text(let buffer):
            if case .open(let worker) = phase { worker.yield(.text(buffer)) }
        case .binary:
            socket.close(code: .unsupportedData, reason: "binary messages are not supported; send JSON text")
        }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        if case .open(let worker) = phase { worker.yield(.closed) }
        phase = .done
    }
}
