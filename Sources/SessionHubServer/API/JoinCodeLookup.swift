import Foundation
import HubDomain
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// `GET /api/join-codes/{code}`: where the shared session with a join code lives, so a client
/// can connect to the node that owns it before it sends `join` (and skip the `session_elsewhere`
/// redirect). A player's bearer token is required, and each lookup is counted like a `join`: a
/// code that names no live session spends the same failure budgets (per user and per client
/// address), and a spent budget refuses lookups and joins alike.
///
/// Answers `200 {"sessionId","node","url"}` — `url` is the owner's public WebSocket URL, null on
/// a single node (the server asked is the one to use) — or an error in the API's shape:
/// 401 without a valid token, 404 `unknown_join_code`, 429 `join_locked` and 503
/// `session_elsewhere` (its node died and no other has adopted it yet) or `storage_unavailable`,
/// the last three with `Retry-After`.
struct JoinCodeLookup: Sendable {
    let hub: Hub
    let tokens: HubTokenVerifier
    let clock: any HubClock

    /// Whether `path` is this route's.
    static func serves(_ path: String) -> Bool { path.hasPrefix("/api/join-codes/") }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            guard request.head.method == .GET || request.head.method == .HEAD else {
                throw APIError(.methodNotAllowed, "method_not_allowed", "\(request.head.method) is not allowed on /api/join-codes/{code}")
            }
            let claims = try tokens.authenticate(request, clock: clock)
            let code = String(request.path.dropFirst("/api/join-codes/".count))
            guard !code.isEmpty, !code.contains("/"), code.utf8.count <= 64, let decoded = code.removingPercentEncoding else {
                throw APIError.badRequest("the path must be /api/join-codes/{code}, with a join code of at most 64 bytes")
            }
            let placement: SessionPlacement
            do {
                placement = try await hub.locate(joinCode: decoded, user: HubUser(id: claims.sub, displayName: claims.name),
                                                 address: request.clientAddress)
            } catch {
                throw Self.apiError(error)
            }
            let owner = placement.owner ?? hub.localNode
            let url: Any = owner.publicURL.isEmpty ? NSNull() : owner.publicURL
            let body: [String: Any] = ["sessionId": placement.sessionId, "node": owner.nodeId, "url": url]
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return .json(.ok, ByteBuffer(bytes: data))
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(.internalServerError, "internal_error", "the lookup failed").response
        }
    }

    static func apiError(_ error: HubError) -> APIError {
        let code = error.code.rawValue
        switch error.code {
        case .unknownJoinCode: return APIError(.notFound, code, error.message)
        case .joinLocked: return APIError(.tooManyRequests, code, error.message, retryAfter: error.retryAfterSeconds)
        case .sessionElsewhere, .storageUnavailable:
            return APIError(.serviceUnavailable, code, error.message, retryAfter: error.retryAfterSeconds ?? 1)
        default: return APIError(.badRequest, code, error.message)
        }
    }
}
