import Foundation
import HubDomain
import HubStorage
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// The HTTP JSON API: the caller's own profile, history and progress (bearer token), and the
/// operator's premium switch (admin token). A user only ever reaches their own data.
struct HubAPI: Sendable {
    let tokens: TokenAuthority
    let clock: any HubClock
    let stores: HubStores
    /// Largest request body accepted by the API, bytes.
    let maxBodyBytes = 64 * 1024

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            let claims = try authenticate(request)
            return try await route(request, claims: claims)
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(.serviceUnavailable, "storage_unavailable", "the store could not be reached; try again").response
        }
    }

    private func authenticate(_ request: HTTPRequest) throws(APIError) -> TokenClaims {
        guard let token = request.bearerToken else {
            throw APIError(.unauthorized, AuthError.missing.code, AuthError.missing.description)
        }
        do {
            return try tokens.verify(token, now: Int(clock.now() / 1000))
        } catch {
            throw APIError(.unauthorized, error.code, error.description)
        }
    }

    private func route(_ request: HTTPRequest, claims: TokenClaims) async throws -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = request.head.method
        func notAllowed() -> APIError {
            APIError(.methodNotAllowed, "method_not_allowed", "\(method) is not allowed on \(request.path.prefix(100))")
        }
        if parts == ["api", "profile"] {
            switch method {
            case .GET: return try json(.ok, await profile(of: claims))
            case .PUT: return try await updateProfile(request, claims: claims)
            default: throw notAllowed()
            }
        }
        if parts == ["api", "progress"] {
            guard method == .GET else { throw notAllowed() }
            struct Body: Encodable { let progress: [LanguageProgress] }
            return try json(.ok, Body(progress: try await stores.progress.progress(userId: claims.sub)))
        }
        if parts == ["api", "history"] {
            switch method {
            case .GET:
                try await requirePremium(claims)
                let page = try await stores.history.getSessions(userId: claims.sub, limit: try limit(request), before: try before(request))
                return try json(.ok, page)
            case .DELETE:
                try await requirePremium(claims)
                struct Body: Encodable { let deleted: Int }
                return try json(.ok, Body(deleted: try await stores.history.clear(userId: claims.sub)))
            default: throw notAllowed()
            }
        }
        if parts.count == 3, parts[0] == "api", parts[1] == "history" {
            let id = parts[2]
            switch method {
            case .GET:
                try await requirePremium(claims)
                guard let session = try await stores.history.getSession(userId: claims.sub, sessionId: id) else {
                    throw APIError.notFound("no session \(id.prefix(64)) in your history")
                }
                return try json(.ok, session)
            case .DELETE:
                try await requirePremium(claims)
                guard try await stores.history.deleteSession(userId: claims.sub, sessionId: id) else {
                    throw APIError.notFound("no session \(id.prefix(64)) in your history")
                }
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

    private func profile(of claims: TokenClaims) async throws -> UserProfile {
        if let stored = try await stores.profiles.profile(userId: claims.sub) { return stored }
        return UserProfile.initial(id: claims.sub, displayName: claims.name, now: clock.now())
    }

    private func updateProfile(_ request: HTTPRequest, claims: TokenClaims) async throws -> HTTPResponse {
        let update: ProfileUpdate = try decode(request)
        let current = try await profile(of: claims)
        let updated = try update.applied(to: current, now: clock.now())
        return try json(.ok, try await stores.profiles.saveProfile(updated))
    }

    private func requirePremium(_ claims: TokenClaims) async throws {
        guard try await stores.profiles.profile(userId: claims.sub)?.isPremium == true else { throw APIError.featureLocked }
    }

    private func limit(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return 20 }
        guard let value = Int(text), (1...100).contains(value) else { throw .badRequest("limit must be an integer from 1 to 100") }
        return value
    }

    private func before(_ request: HTTPRequest) throws(APIError) -> Int64? {
        guard let text = request.query("before") else { return nil }
        guard let value = Int64(text), value > 0 else { throw .badRequest("before must be a positive epoch-milliseconds integer") }
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

    private static func describe(_ error: DecodingError) -> String {
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
