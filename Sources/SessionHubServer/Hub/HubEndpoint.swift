import HubDomain
import NIOCore
import WebSocket
import WebSocketTransport

/// The `/ws` endpoint of one connection: hands every text message, in order, to a worker task
/// that authenticates the connection and talks to the hub; binary messages are refused (1003).
final class HubEndpoint: WebSocketEndpoint {
    private let runtime: HubRuntime
    /// The outcome of checking the token presented on the upgrade; nil when none was presented.
    private let upgradeAuth: Result<TokenClaims, AuthError>?
    /// The client's address as an opaque key (see ``HubWebSocketRouter``), or nil.
    private let clientAddress: String?
    private let inputs: AsyncStream<ConnectionInput>.Continuation
    private let stream: AsyncStream<ConnectionInput>
    private var authTimer: Scheduled<Void>?

    init(runtime: HubRuntime, upgradeAuth: Result<TokenClaims, AuthError>?, clientAddress: String?) {
        self.runtime = runtime
        self.upgradeAuth = upgradeAuth
        self.clientAddress = clientAddress
        (stream, inputs) = AsyncStream.makeStream(of: ConnectionInput.self)
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        if case .failure(let error) = upgradeAuth {
            runtime.logger.info("connection refused", metadata: ["conn": "\(socket.id)", "code": "\(error.code)"])
            socket.close(code: .policyViolation, reason: "\(error.code): \(error)")
            inputs.finish()
            return
        }
        if upgradeAuth == nil {
            let inputs = self.inputs
            authTimer = socket.eventLoop.scheduleTask(in: .seconds(runtime.limits.authTimeoutSeconds)) {
                inputs.yield(.authTimeout)
            }
        }
        let worker = HubConnectionWorker(socket: socket, runtime: runtime, inputs: inputs, clientAddress: clientAddress)
        let stream = self.stream
        let claims = try? upgradeAuth?.get()
        Task {
            await worker.run(stream, authenticatedAs: claims)
        }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        switch message {
        case .text(let buffer):
            inputs.yield(.text(String(buffer: buffer)))
        case .binary:
            socket.close(code: .unsupportedData, reason: "binary messages are not supported; send JSON text")
        }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        authTimer?.cancel()
        authTimer = nil
        inputs.finish()
    }
}
