import Foundation
import HubDomain
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// How the operator routes of one node reach the others: a request about a session another
/// node owns is sent on to that node (with the operator's own token, so it is checked and
/// audited there), and a list of live sessions gathers every live node's. Players' traffic
/// never goes through here: every member of a session is on its owner.
struct ClusterRelay: Sendable {
    /// Set on a request a node relays: the node that receives it answers for itself only, and
    /// relays nothing further.
    static let scopeHeader = "X-SessionHub-Scope"

    /// This node.
    let local: NodeLocation
    /// The live peers (from the node registry).
    let peers: @Sendable () async throws -> [NodeLocation]
    let client: PeerClient

    /// Whether `request` was relayed by another node (and so must be answered locally).
    static func isRelayed(_ request: HTTPRequest) -> Bool {
        request.head.headers[canonicalForm: scopeHeader].contains { $0.lowercased() == "node" }
    }

    /// `request` sent on to `node`, whose answer is returned as it is; 502 `node_unreachable`
    /// when the node does not answer.
    func forward(_ request: HTTPRequest, to node: NodeLocation) async -> HTTPResponse {
        guard let base = node.internalURL else {
            return APIError(.badGateway, "node_unreachable", "node \(node.nodeId) has no internal URL").response
        }
        var headers = HTTPHeaders()
        for name in ["Authorization", "Content-Type"] {
            for value in request.head.headers[name] { headers.add(name: name, value: value) }
        }
        headers.add(name: Self.scopeHeader, value: "node")
        do {
            let answer = try await client.send(request.head.method, request.head.uri, to: base, headers: headers,
                                               body: request.body)
            var response = HTTPResponse(status: answer.status, body: answer.body)
            for name in ["Content-Type", "Retry-After"] {
                for value in answer.headers[name] { response.headers.add(name: name, value: value) }
            }
            return response
        } catch {
            return APIError(.badGateway, "node_unreachable", "node \(node.nodeId) did not answer: \(error)",
                            retryAfter: 1).response
        }
    }

    /// One peer's answer to a relayed `GET path`: its JSON object, or why there is none.
    struct PeerView: @unchecked Sendable {
        var node: NodeLocation
        var object: [String: Any]?
        var error: String?
    }

    /// `GET path` on every live peer at once, with `authorization`.
    func gather(_ path: String, authorization: String?) async -> (peers: [PeerView], error: String?) {
        let nodes: [NodeLocation]
        do {
            nodes = try await peers()
        } catch {
            return ([], "the node registry cannot be reached: \(error)")
        }
        var relayedHeaders = HTTPHeaders()
        if let authorization { relayedHeaders.add(name: "Authorization", value: authorization) }
        relayedHeaders.add(name: Self.scopeHeader, value: "node")
        let headers = relayedHeaders, client = self.client
        let views = await withTaskGroup(of: PeerView.self) { group in
            for node in nodes {
                group.addTask {
                    guard let base = node.internalURL else { return PeerView(node: node, error: "no internal URL") }
                    do {
                        let answer = try await client.send(.GET, path, to: base, headers: headers)
                        guard answer.status == .ok,
                              let object = try? JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView)) as? [String: Any] else {
                            return PeerView(node: node, error: "answered \(answer.status.code)")
                        }
                        return PeerView(node: node, object: object)
                    } catch {
                        return PeerView(node: node, error: "\(error)")
                    }
                }
            }
            var all: [PeerView] = []
            for await view in group { all.append(view) }
            return all
        }
        return (views.sorted { $0.node.nodeId < $1.node.nodeId }, nil)
    }
}
