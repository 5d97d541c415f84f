import Foundation
import HubDomain
import HubStorage
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// `POST /api/dev/sign-in`: a token for trying the hub in a browser (the web player, `/play`),
/// signed with the hub's secret like `sessionhub token`'s. By default it answers only requests
/// made on this machine to a hub listening on loopback with no proxy in front
/// (``Audience/thisMachine``); `http.devSignIn on` opens it to everyone. Whoever reaches it can
/// sign in as any development user, so a public hub leaves it off and its players bring the
/// app's tokens.
///
/// The body must be sent as `application/json`: a page of another site cannot post that
/// without a CORS preflight, which the hub does not grant it.
///
/// Body: `{"name": "Ana", "userId": "dev-…" (optional: sign in again as the same player),
/// "premium": true (optional)}`. Answer 200: `{"token", "userId", "name", "premium",
/// "expiresAt"}` (epoch seconds). The token travels in the body only, never in a URL.
public struct DevSignIn: Sendable {
    /// Whose requests it answers.
    public enum Audience: Sendable, Equatable {
        /// Requests from a loopback peer that carry no proxy forwarding header.
        case thisMachine
        /// Every request (`http.devSignIn on`).
        case everyone
    }

    let audience: Audience
    let authority: TokenAuthority
    let clock: any HubClock
    /// Sets the premium flag when asked (nil without a store: the answer says `premium: false`).
    let profiles: (any ProfileRepository)?
    /// The JSON API's body limit.
    let maxBodyBytes: Int

    /// The route.
    static let path = "/api/dev/sign-in"
    /// A development token's lifetime, seconds (shortened to the hub's longest allowed).
    static let lifetime = 12 * 3600
    /// The headers a reverse proxy adds: a request that carries one came from elsewhere.
    static let forwardingHeaders = ["X-Forwarded-For", "Forwarded", "X-Real-IP"]

    private struct Request: Decodable {
        var name: String
        var userId: String?
        var premium: Bool?
    }

    private struct Answer: Encodable {
        var token: String
        var userId: String
        var name: String
        var premium: Bool
        var expiresAt: Int
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.head.method == .POST else {
            var response = APIError(.methodNotAllowed, "method_not_allowed", "use POST").response
            response.headers.add(name: "Allow", value: "POST")
            return response
        }
        if audience == .thisMachine, !Self.isFromThisMachine(request) {
            return APIError.notFound("the development sign-in answers only requests made on the hub's own machine (http.devSignIn on opens it)").response
        }
        do {
            guard request.head.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/json") == true else {
                throw APIError(.unsupportedMediaType, "unsupported_media_type", "send the body as Content-Type: application/json")
            }
            guard request.body.readableBytes <= maxBodyBytes else {
                throw APIError(.payloadTooLarge, "payload_too_large", "request bodies are limited to \(maxBodyBytes) bytes")
            }
            guard let body = try? JSONDecoder().decode(Request.self, from: Data(request.body.readableBytesView)) else {
                throw APIError.badRequest(#"the body must be {"name": "…"} with optional "userId" and "premium""#)
            }
            let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= UserProfile.maxDisplayNameLength,
                  name.utf8.count <= TokenClaims.maxNameBytes, !TokenClaims.hasControlCharacters(name) else {
                throw APIError(.badRequest, "invalid_name",
                               "name must be 1 to \(UserProfile.maxDisplayNameLength) characters (at most \(TokenClaims.maxNameBytes) bytes) without control characters")
            }
            let userId: String
            if let given = body.userId {
                guard Self.isDevUserId(given) else {
                    throw APIError(.badRequest, "invalid_user_id", "userId must be one this route gave out (dev- and 6 to 32 of a-z, 0-9)")
                }
                userId = given
            } else {
                userId = Self.newUserId()
            }
            var premium = false
            if body.premium == true, let profiles {
                _ = try await profiles.setPremium(userId: userId, isPremium: true, actor: "dev-sign-in", at: clock.now())
                premium = true
            }
            let now = Int(clock.now() / 1000)
            let ttl = min(Self.lifetime, authority.policy.maxLifetimeSeconds)
            let token = authority.mint(TokenClaims(sub: userId, name: name, iat: now, exp: now + ttl, role: nil))
            var response = try Self.json(Answer(token: token, userId: userId, name: name, premium: premium,
                                                     expiresAt: now + ttl))
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(.serviceUnavailable, "storage_unavailable", "the store could not be reached; try again").response
        }
    }

    private static func json(_ value: some Encodable) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .json(.ok, ByteBuffer(bytes: try encoder.encode(value)))
    }

    /// A loopback peer, and no proxy's forwarding header.
    static func isFromThisMachine(_ request: HTTPRequest) -> Bool {
        guard let peer = request.remoteAddress?.ipAddress, WebSettings.isLoopback(peer) else { return false }
        return !forwardingHeaders.contains { request.head.headers.contains(name: $0) }
    }

    /// `dev-` and 12 random lower-case hex digits.
    static func newUserId() -> String {
        var generator = SystemRandomNumberGenerator()
        let bits = generator.next() & 0xFFFF_FFFF_FFFF
        let hex = String(bits, radix: 16)
        return "dev-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// `dev-` and 6 to 32 lower-case letters and digits: the ids this route hands out.
    static func isDevUserId(_ id: String) -> Bool {
        guard id.hasPrefix("dev-") else { return false }
        let rest = id.utf8.dropFirst(4)
        return (6...32).contains(rest.count) && rest.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}
