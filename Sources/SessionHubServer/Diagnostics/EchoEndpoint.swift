import WebSocketTransport

/// `/echo`: sends every message back unchanged, as the same type. A diagnostic for conformance
/// suites and benchmarks; off unless `--enable-echo` is given.
final class EchoEndpoint: WebSocketEndpoint {
    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        socket.send(message)
    }
}
