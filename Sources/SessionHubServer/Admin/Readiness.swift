import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// `GET /readyz`: whether this instance should get new players. 200 `{"status":"ready", ...}`
/// when the storage answers and the server is not draining; otherwise 503 with the `reason`
/// (`draining` first, then `storage_unreachable`). `/healthz` stays 200 while the process
/// runs: liveness and readiness are different questions.
struct Readiness: Sendable {
    let console: OperatorConsole

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let storage = await console.storage.probe()
        let draining = console.isDraining
        var body: [String: Any] = [
            "draining": draining,
            "storage": AdminAPI.storageView(storage),
            "liveSessions": await console.hub.liveSessionCount,
            "connections": console.connectionCount,
        ]
        let status: HTTPResponseStatus
        if draining {
            status = .serviceUnavailable
            body["status"] = "unavailable"
            body["reason"] = "draining"
            body["message"] = "the server is shutting down"
        } else if !storage.reachable {
            status = .serviceUnavailable
            body["status"] = "unavailable"
            body["reason"] = "storage_unreachable"
            body["message"] = "the storage does not answer"
        } else {
            status = .ok
            body["status"] = "ready"
        }
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var response = HTTPResponse.json(status, ByteBuffer(bytes: data))
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        if request.head.method == .HEAD { response.body = ByteBuffer() }
        return response
    }
}
