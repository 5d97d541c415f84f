import Foundation
import HubDomain
import HubStorage
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// The HTTP JSON API: the caller's own profile, history and progress (bearer token), and the
/// operator's premium switch (admin token). A user only ever reaches their own data.
struct HubAPI: Sendable {
    let tokens: HubTokenVerifier
    let clock: any HubClock
    let stores: HubStores
    /// Largest request body accepted by the API, bytes (`http.maxApiBodySize`; the HTTP layer
    /// refuses larger ones before reading them).
    let maxBodyBytes: Int
    /// What a posted session must pass (the live session's limits).
    let postedSessions: PostedSessionRules
    /// The largest page of whole sessions (`http.maxFullHistoryPage`).
    let maxFullHistoryPage: Int
    /// Where `historyUpdated` goes when the app saved a new session (the user's other devices).
    let channels: UserChannels?

    private var account: AccountService {
        AccountService(stores: stores, clock: clock, postedSessions: postedSessions, maxFullHistoryPage: maxFullHistoryPage)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            let claims = try tokens.authenticate(request, clock: clock)
            return try await route(request, claims: claims)
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(.serviceUnavailable, "storage_unavailable", "the store could not be reached; try again").response
        }
    }

    private func route(_ request: HTTPRequest, claims: TokenClaims) async throws -> HTTPResponse {
        // Segments percent-decoded: a client may escape characters of an id (`:` as `%3A`).
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0.removingPercentEncoding ?? String($0) }
        let method = request.head.method
        func notAllowed() -> APIError {
            APIError(.methodNotAllowed, "method_not_allowed", "\(method) is not allowed on \(request.path.prefix(100))")
        }
        if parts == ["api", "profile"] {
            switch method {
            case .GET: return try json(.ok, await account.profile(userId: claims.sub, displayName: claims.name))
            case .PUT:
                let update: ProfileUpdate = try decode(request)
                return try json(.ok, try await account.updateProfile(update, userId: claims.sub, displayName: claims.name))
            default: throw notAllowed()
            }
        }
        if parts == ["api", "progress"] {
            guard method == .GET else { throw notAllowed() }
            struct Body: Encodable { let progress: [UserProgress] }
            return try json(.ok, Body(progress: try await account.progress(userId: claims.sub)))
        }
        if parts == ["api", "history"] {
            switch method {
            case .GET:
                let (limit, before, beforeId) = (try limit(request), try before(request), request.query("beforeId"))
                if try full(request) {
                    return try json(.ok, try await account.fullHistory(userId: claims.sub, limit: limit, before: before,
                                                                       beforeId: beforeId))
                }
                return try json(.ok, try await account.history(userId: claims.sub, limit: limit, before: before, beforeId: beforeId))
            case .POST:
                let posted: HistorySession = try decode(request)
                let (created, session) = try await account.saveHistorySession(posted, userId: claims.sub)
                if created, let channels, let push = AccountRequests.historyUpdated(session.summary) {
                    channels.send(push, to: claims.sub)
                }
                return try json(created ? .created : .ok, session)
            case .DELETE:
                struct Body: Encodable { let deleted: Int }
                return try json(.ok, Body(deleted: try await account.clearHistory(userId: claims.sub)))
            default: throw notAllowed()
            }
        }
        if parts.count == 3, parts[0] == "api", parts[1] == "history" {
            let id = parts[2]
            switch method {
            case .GET:
                return try json(.ok, try await account.historySession(userId: claims.sub, sessionId: id))
            case .DELETE:
                try await account.deleteHistorySession(userId: claims.sub, sessionId: id)
                return HTTPResponse(status: .noContent)
            default: throw notAllowed()
            }
        }
        if parts.count == 4, parts[0] == "admin", parts[1] == "users", parts[3] == "premium" {
            guard method == .PUT else { throw notAllowed() }
            guard claims.isAdmin else { throw APIError(.forbidden, "forbidden", "an admin token is required") }
            struct Body: Decodable { let isPremium: Bool }
            let body: Body = try decode(request)
            let profile = try await stores.profiles.setPremium(userId: parts[2], isPremium: body.isPremium,
                                                               actor: claims.sub, at: clock.now())
            return try json(.ok, profile)
        }
        throw APIError.notFound()
    }

    private func limit(_ request: HTTPRequest) throws(APIError) -> Int? {
        guard let text = request.query("limit") else { return nil }
        guard let value = Int(text) else { throw .badRequest("limit must be an integer from 1 to 100") }
        return value
    }

    /// `full=1` (or `true`): whole sessions instead of summaries; `0`, `false` or absent: summaries.
    private func full(_ request: HTTPRequest) throws(APIError) -> Bool {
        switch request.query("full") {
        case nil, "0", "false": return false
        case "1", "true": return true
        default: throw .badRequest("full must be 1 or 0")
        }
    }

    private func before(_ request: HTTPRequest) throws(APIError) -> Int64? {
        guard let text = request.query("before") else { return nil }
        guard let value = Int64(text) else { throw .badRequest("before must be a positive epoch-milliseconds integer") }
        return value
    }

    private func decode<T: Decodable>(_ request: HTTPRequest) throws(APIError) -> T {
        guard request.body.readableBytes <= maxBodyBytes else {
            throw APIError(.payloadTooLarge, "payload_too_large", "request bodies are limited to \(maxBodyBytes) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(request.body.readableBytesView))
        } catch let error as DecodingError {
            throw .badRequest("invalid JSON body: \(Self.describe(error))")
        } catch {
            throw .badRequest("invalid JSON body")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "missing field \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type at \(path(context))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "invalid value at \(path(context))"
        @unknown default: return "undecodable"
        }
    }

    private func json(_ status: HTTPResponseStatus, _ value: some Encodable) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .json(status, ByteBuffer(bytes: try encoder.encode(value)))
    }
}
