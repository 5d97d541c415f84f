import Foundation
import HubDomain
import HubStorage
import Logging
import NIOPosix
import NIOSSL
import Testing
@testable import SessionHubServer

/// A real hub configured with an identity provider's JWKS: players connect over WebSocket and
/// call the HTTP API with tokens the provider signed (ES256, RS256), next to the hub's own.
@Suite("Identity provider tokens on a real hub", .timeLimit(.minutes(2)))
struct IdentityProviderIntegrationTests {
    typealias IdP = TestIdentityProvider
    static let ec = IdP.es256("ec-live")
    static let rsa = IdP.rs256("rsa-live")

    private static func now() -> Int { Int(SystemHubClock().now() / 1000) }

    private static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-idp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aJWKSFileLetsES256OnWebSocketAndRS256OnTheAPIIn() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jwks = directory.appendingPathComponent("jwks.json")
        try IdP.jwks([Self.ec, Self.rsa]).write(to: jwks)
        let persistence = try HubPersistence.sqlite(path: directory.appendingPathComponent("hub.sqlite").path,
                                                    logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence, adjust: { configuration in
            configuration.identityProvider.jwksFile = jwks.path
            configuration.identityProvider.issuer = IdP.issuer
            configuration.identityProvider.audience = IdP.audience
        }) { port, _ in
            var claims = IdP.claims(sub: "idp|ana", now: Self.now())
            claims["name"] = "Ana Lima"
            let client = try await HubTestClient.connect(port: port, token: IdP.token(claims, key: Self.ec))
            let welcome = try #require(await client.expect("welcome"))
            #expect(welcome.string("userId") == "idp|ana")
            #expect(welcome.string("displayName") == "Ana Lima")
            client.drop()

            // The same user through the `auth` message, RS256 this time.
            let late = try await HubTestClient.connect(port: port, token: nil)
            late.send(["type": "auth", "id": "a", "token": IdP.token(claims, key: Self.rsa)])
            #expect(try #require(await late.expect("welcome")).string("ref") == "a")
            late.drop()

            let profile = try await HTTPTestClient.request("GET", port: port, "/api/profile",
                                                           token: IdP.token(IdP.claims(sub: "idp|bo", now: Self.now()), key: Self.rsa))
            #expect(profile.status == 200)
            #expect(profile.json?["id"] as? String == "idp|bo")
            #expect(profile.json?["displayName"] as? String == "ana")

            // Wrong audience: 401 with its code on the API, 1008 with its reason on /ws.
            var foreign = IdP.claims(sub: "idp|bo", now: Self.now())
            foreign["aud"] = "another-app"
            let refused = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: IdP.token(foreign, key: Self.rsa))
            #expect(refused.status == 401)
            #expect(refused.json?["code"] as? String == "token_audience")
            let closed = try await HubTestClient.connect(port: port, token: nil)
            closed.send(["type": "auth", "token": IdP.token(foreign, key: Self.ec)])
            guard case .closed(let code, let reason)? = await closed.next() else {
                Issue.record("no close")
                return
            }
            #expect(code == .policyViolation)
            #expect(reason.hasPrefix("token_audience:"))

            // The hub's own tokens still work.
            let own = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: HubTestServer.token("dev"))
            #expect(own.status == 200)
        }
    }

    /// A JWKS URL served over HTTP: loaded at start; a key the provider adds later is fetched
    /// when a token first names it (refused once, then accepted without a restart).
    @Test func aJWKSURLIsFetchedAndANewKidIsPickedUp() async throws {
        let idp = JWKSTestServer(jwks: IdP.jwks([Self.ec]))
        let url = try await idp.start()
        defer { Task { await idp.stop() } }
        try await HubTestServer.with(persistence: HubPersistence(journal: InMemorySessionJournal(), history: InMemoryHistoryWriter(),
                                                                  learners: InMemoryLearnerRecords()),
                                     adjust: { configuration in
            configuration.identityProvider.jwksURL = url
            configuration.identityProvider.audience = IdentityProviderSettings.anyAudience
            configuration.identityProvider.minRefreshSeconds = 1
        }) { port, _ in
            #expect(idp.requests == 1)
            let first = try await HubTestClient.connect(port: port, token: IdP.token(IdP.claims(now: Self.now()), key: Self.ec))
            #expect(await first.expect("welcome") != nil)
            first.drop()

            idp.publish(IdP.jwks([Self.ec, Self.rsa]))
            let token = IdP.token(IdP.claims(now: Self.now()), key: Self.rsa)
            let early = try await HubTestClient.connect(port: port, token: nil)
            early.send(["type": "auth", "token": token])
            if case .closed(let code, let reason)? = await early.next() {
                #expect(code == .policyViolation)
                #expect(reason.hasPrefix("token_unknown_key:"))
            } else {
                Issue.record("an unknown kid was not refused")
            }
            var welcomed = false
            let deadline = ContinuousClock.now + .seconds(15)
            while !welcomed, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                let again = try await HubTestClient.connect(port: port, token: nil)
                again.send(["type": "auth", "token": token])
                welcomed = await again.expect("welcome", seconds: 2) != nil
                again.drop()
            }
            #expect(welcomed, "the new key was not picked up")
            #expect(idp.requests >= 2)
        }
    }

    /// A JWKS over `https://`: fetched when the fetcher trusts the server's certificate (its host
    /// name checked), refused as `jwks_unreadable` with the system's trust roots alone.
    @Test func aJWKSURLOverTLSIsVerified() async throws {
        let (certificate, key) = try await SessionHubClientIntegrationTests.throwAwayCertificate()
        let serverTLS = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                                  privateKey: .privateKey(key)))
        let idp = JWKSTestServer(jwks: IdP.jwks([Self.ec]), tls: serverTLS)
        let text = try await idp.start()
        defer { Task { await idp.stop() } }
        let url = try #require(JWKSURL(text))
        var fetcher = JWKSFetcher(group: MultiThreadedEventLoopGroup.singleton)
        fetcher.tls.trustRoots = .certificates([certificate])
        let ring = JWKSKeyRing()
        let trusting = JWKSRefresher(source: .url(url), ring: ring, settings: IdentityProviderSettings(), fetcher: fetcher,
                                     logger: Logger(label: "test"))
        #expect(try await trusting.reload())
        #expect(ring.keys.compactMap(\.kid) == ["ec-live"])

        let doubting = JWKSRefresher(source: .url(url), ring: JWKSKeyRing(), settings: IdentityProviderSettings(),
                                     group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"))
        do {
            try await doubting.reload()
            Issue.record("an untrusted certificate was accepted")
        } catch {
            #expect(error.code == "jwks_unreadable")
        }
    }
}
