import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// `GET /readyz`: whether this instance should get new players. 200 `{"status":"ready", ...}`
/// when the storage answers, the server is not draining and — on a cluster node — the node is
/// registered in its cluster and holds its liveness proof; otherwise 503 with the `reason`
/// (`draining` first, then `storage_unreachable`, then the cluster's: `not_registered`,
/// `storage_unreachable`, `evicted`). `/healthz` stays 200 while the process
/// runs: liveness and readiness are different questions.
struct Readiness: Sendable {
    let console: OperatorConsole

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let storage = await console.storage.probe()
        let draining = console.isDraining
        let cluster = console.clusterStanding
        var body: [String: Any] = [
            "draining": draining,
            "storage": AdminAPI.storageView(storage),
            "liveSessions": await console.hub.liveSessionCount,
            "connections": console.connectionCount,
        ]
        if let cluster { body["node"] = cluster.node }
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
        } else if let cluster, !cluster.admitted {
            status = .serviceUnavailable
            body["status"] = "unavailable"
            body["reason"] = cluster.reason ?? "not_registered"
            body["message"] = "this node does not take new players now (cluster: \(cluster.reason ?? "not registered"))"
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
