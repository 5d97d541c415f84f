import Foundation
import Logging
import NIOPosix
import Testing
@testable import SessionHubServer

/// Tokens of an app's identity provider: real RS256 and ES256 signatures with keys made here,
/// checked by the same verifier `/ws` and the HTTP API use (``HubTokenVerifier``).
@Suite struct IdentityProviderTokenTests {
    typealias IdP = TestIdentityProvider
    let now = 1_800_000_000
    /// Made once: RSA key generation is slow in a debug build.
    static let ec = IdP.es256("ec-1")
    static let rsa = IdP.rs256("rsa-1")
    static let rsa2 = IdP.rs256("rsa-2")
    var ec: IdP.Key { Self.ec }
    var rsa: IdP.Key { Self.rsa }
    let hubAuthority = TokenAuthority(secret: Array("0123456789abcdef0123456789abcdef".utf8))

    /// A verifier whose ring holds `keys`.
    func verifier(_ keys: [IdP.Key], issuer: String? = IdP.issuer, audience: String? = IdP.audience) throws -> HubTokenVerifier {
        let ring = JWKSKeyRing()
        ring.replace(with: try JSONWebKeySet(data: Array(IdP.jwks(keys)), source: "test"))
        return HubTokenVerifier(hub: hubAuthority,
                                identityProvider: IdentityProviderVerifier(keys: ring, issuer: issuer, audience: audience))
    }

    @Test func es256AndRS256TokensVerify() throws {
        let hub = try verifier([ec, rsa])
        for key in [ec, rsa] {
            let claims = try hub.verify(IdP.token(IdP.claims(now: now), key: key), now: now + 5)
            #expect(claims == TokenClaims(sub: "idp|ana", name: "ana", iat: now, exp: now + 3600, role: nil))
        }
    }

    @Test func theHubsOwnTokensStillVerify() throws {
        let hub = try verifier([ec])
        let own = TokenClaims(sub: "ops", name: "Ops", iat: now, exp: now + 60, role: "admin")
        #expect(try hub.verify(hubAuthority.mint(own), now: now) == own)
    }

    @Test func theDisplayNameFallsBackFromNameToPreferredUsernameToSub() throws {
        let hub = try verifier([ec])
        var claims = IdP.claims(now: now)
        claims["name"] = "Ana Lima"
        #expect(try hub.verify(IdP.token(claims, key: ec), now: now).name == "Ana Lima")
        claims["name"] = nil
        #expect(try hub.verify(IdP.token(claims, key: ec), now: now).name == "ana")
        claims["preferred_username"] = nil
        #expect(try hub.verify(IdP.token(claims, key: ec), now: now).name == "idp|ana")
        claims["name"] = String(repeating: "é", count: 100)
        #expect(try hub.verify(IdP.token(claims, key: ec), now: now).name == String(repeating: "é", count: 64))
    }

    @Test func anAudienceStringAFractionalDateAndExtraClaimsAreAccepted() throws {
        let hub = try verifier([rsa])
        var claims = IdP.claims(now: now)
        claims["aud"] = IdP.audience
        claims["exp"] = Double(now) + 60.75
        claims["nbf"] = now
        claims["groups"] = ["a", "b"]
        claims["role"] = "admin"
        let verified = try hub.verify(IdP.token(claims, key: rsa), now: now)
        #expect(verified.exp == now + 60)
        #expect(!verified.isAdmin, "an identity provider's role claim never makes an operator")
    }

    @Test func anUnknownKidIsRefusedAndAsksForARefresh() throws {
        let ring = JWKSKeyRing()
        ring.replace(with: try JSONWebKeySet(data: Array(IdP.jwks([ec])), source: "test"))
        let hub = HubTokenVerifier(hub: hubAuthority, identityProvider: IdentityProviderVerifier(keys: ring))
        let stranger = IdP.es256("ec-2")
        #expect(throws: AuthError.unknownKey) { try hub.verify(IdP.token(IdP.claims(now: now), key: stranger), now: now) }
        #expect(ring.takeRefreshRequest())
        #expect(!ring.takeRefreshRequest())
        #expect(AuthError.unknownKey.code == "token_unknown_key")
    }

    @Test func wrongAlgorithmsAreRefused() throws {
        let hub = try verifier([ec, rsa])
        let claims = IdP.claims(now: now)
        // alg none, no signature.
        let signed = IdP.token(claims, key: ec).split(separator: ".")
        let none = IdP.b64(Array(#"{"alg":"none","kid":"ec-1"}"#.utf8))
        #expect(throws: AuthError.unsupportedAlgorithm) { try hub.verify(none + "." + signed[1] + ".", now: now) }
        // Alg confusion: HS256 with the RSA public key (its JWK's n) as the HMAC secret.
        let n = try #require(rsa.jwk["n"])
        let confused = TokenAuthority(secret: Array(n.utf8)).mint(TokenClaims(sub: "x", name: "x", iat: now, exp: now + 60))
        #expect(throws: AuthError.badSignature) { try hub.verify(confused, now: now) }
        // An ES256 header on the RSA key's kid, and RS256 on the EC key's.
        #expect(throws: AuthError.unsupportedAlgorithm) { try hub.verify(IdP.token(claims, key: ec, header: ["kid": "rsa-1"]), now: now) }
        #expect(throws: AuthError.unsupportedAlgorithm) { try hub.verify(IdP.token(claims, key: rsa, header: ["kid": "ec-1"]), now: now) }
        // RS384, and a crit header the hub does not understand.
        #expect(throws: AuthError.unsupportedAlgorithm) { try hub.verify(IdP.token(claims, key: rsa, header: ["alg": "RS384"]), now: now) }
        let critical = IdP.token(claims, key: ec).split(separator: ".")
        let critHeader = IdP.b64(Array(#"{"alg":"ES256","crit":["exp"],"exp":1,"kid":"ec-1"}"#.utf8))
        #expect(throws: AuthError.malformed) { try hub.verify(critHeader + "." + critical[1] + "." + critical[2], now: now) }
    }

    @Test func aBadSignatureIsRefused() throws {
        let hub = try verifier([ec, rsa])
        for key in [ec, rsa] {
            // Signed by another key under the same kid.
            let impostor: IdP.Key = key.alg == "ES256" ? IdP.es256(key.kid) : IdP.rs256(key.kid)
            #expect(throws: AuthError.badSignature) { try hub.verify(IdP.token(IdP.claims(now: now), key: impostor), now: now) }
            // A claim changed after signing.
            let parts = IdP.token(IdP.claims(now: now), key: key).split(separator: ".")
            let forged = IdP.b64(try JSONSerialization.data(withJSONObject: IdP.claims(sub: "idp|eve", now: now)))
            #expect(throws: AuthError.badSignature) { try hub.verify(parts[0] + "." + forged + "." + parts[2], now: now) }
        }
    }

    @Test func issuerAudienceAndTimesAreChecked() throws {
        let hub = try verifier([ec])
        var claims = IdP.claims(now: now)
        claims["iss"] = "https://evil.example.com/"
        #expect(throws: AuthError.wrongIssuer) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        claims = IdP.claims(now: now)
        claims["aud"] = ["another-app"]
        #expect(throws: AuthError.wrongAudience) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        claims["aud"] = nil
        #expect(throws: AuthError.wrongAudience) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        claims = IdP.claims(now: now)
        #expect(throws: AuthError.expired) { try hub.verify(IdP.token(claims, key: ec), now: now + 3600) }
        #expect(throws: AuthError.notYetValid) { try hub.verify(IdP.token(claims, key: ec), now: now - 61) }
        claims["nbf"] = now + 120
        #expect(throws: AuthError.notYetValid) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        #expect(throws: AuthError.lifetimeTooLong) {
            try hub.verify(IdP.token(IdP.claims(now: now, ttl: 8 * 86_400), key: ec), now: now)
        }
        claims = IdP.claims(now: now)
        claims["iat"] = nil
        #expect(throws: AuthError.invalidClaims) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        claims = IdP.claims(sub: "ana\u{7}", now: now)
        #expect(throws: AuthError.controlCharacters) { try hub.verify(IdP.token(claims, key: ec), now: now) }
        // Without an issuer or audience configured, neither is checked.
        let open = try verifier([ec], issuer: nil, audience: nil)
        claims = IdP.claims(now: now)
        claims["iss"] = "https://evil.example.com/"
        claims["aud"] = nil
        #expect(try open.verify(IdP.token(claims, key: ec), now: now).sub == "idp|ana")
    }

    @Test func withoutAnIdentityProviderOnlyHS256IsAccepted() throws {
        let hub = HubTokenVerifier(hub: hubAuthority)
        #expect(throws: AuthError.unsupportedAlgorithm) { try hub.verify(IdP.token(IdP.claims(now: now), key: ec), now: now) }
    }

    @Test func badKeySetsAreRefusedWithTheirCode() throws {
        func load(_ text: String) -> JWKSError? {
            do { _ = try JSONWebKeySet(data: Array(text.utf8), source: "t"); return nil } catch { return error }
        }
        #expect(load("nope")?.code == "jwks_invalid")
        #expect(load(#"{"keys": 3}"#)?.code == "jwks_invalid")
        #expect(load(#"{"keys": []}"#)?.code == "jwks_no_keys")
        #expect(load(#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#)?.code == "jwks_no_keys")
        #expect(load(#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k", "x": "AAAA", "y": "AAAA"}]}"#)?.code == "jwks_bad_key")
        let offCurve = IdP.b64([UInt8](repeating: 1, count: 32))
        #expect(load(#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k", "x": "\#(offCurve)", "y": "\#(offCurve)"}]}"#)?.code == "jwks_bad_key")
        let small = IdP.b64([UInt8](repeating: 0xC3, count: 128))
        #expect(load(#"{"keys": [{"kty": "RSA", "kid": "k", "n": "\#(small)", "e": "AQAB"}]}"#)?.code == "jwks_bad_key")
        // Keys the hub does not use are skipped, not refused.
        let mixed = #"{"keys": [{"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"}, \#(String(decoding: try JSONSerialization.data(withJSONObject: ec.jwk), as: UTF8.self))]}"#
        #expect(try JSONWebKeySet(data: Array(mixed.utf8), source: "t").kids == ["ec-1"])
        // One invalid key of a supported type beside a good one: the good one is used, the bad
        // one reported (a provider's odd legacy key does not block the others, nor a rotation).
        let withBad = #"{"keys": [{"kty": "RSA", "kid": "old", "n": "\#(small)", "e": "AQAB"}, \#(String(decoding: try JSONSerialization.data(withJSONObject: ec.jwk), as: UTF8.self))]}"#
        let set = try JSONWebKeySet(data: Array(withBad.utf8), source: "t")
        #expect(set.kids == ["ec-1"])
        #expect(set.skipped.map(\.kid) == ["old"])
        #expect(set.skipped.first?.error.code == "jwks_bad_key")
    }

    @Test func settingsThatContradictEachOtherAreRefused() throws {
        var settings = IdentityProviderSettings()
        settings.issuer = "x"
        #expect(throws: JWKSError.self) { try settings.source() }
        settings.jwksFile = "/tmp/a"
        settings.jwksURL = "https://idp.example.com/jwks"
        #expect((try? settings.source()) == nil)
        settings.jwksFile = nil
        // A JWKS without an audience is refused; `*` accepts any, knowingly.
        #expect(throws: JWKSError.self) { try settings.source() }
        settings.audience = IdentityProviderSettings.anyAudience
        #expect(settings.requiredAudience == nil)
        #expect(try settings.source() == .url(JWKSURL("https://idp.example.com/jwks")!))
        settings.audience = "my-game"
        #expect(settings.requiredAudience == "my-game")
        settings.jwksURL = "ftp://idp.example.com/jwks"
        #expect(throws: JWKSError.self) { try settings.source() }
        // Plain http only to a loopback address.
        settings.jwksURL = "http://idp.example.com/jwks"
        #expect(throws: JWKSError.self) { try settings.source() }
        settings.jwksURL = "http://127.0.0.1:8081/jwks"
        #expect(try settings.source() == .url(JWKSURL("http://127.0.0.1:8081/jwks")!))
        #expect(JWKSURL("https://[::1]:8443/.well-known/jwks.json?x=1")?.target == "/.well-known/jwks.json?x=1")
        #expect(JWKSURL("https://[::1]:8443/jwks")?.host == "::1")
        #expect(JWKSURL("http://user:pw@idp/jwks") == nil)
    }

    /// Rotation by `kid` on a JWKS file: a key added is picked up on reload while the old one keeps
    /// working; a key removed is refused after the reload.
    @Test func rotationOnAFileKeepsOldTokensAndPicksUpNewKeys() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jwks.json")
        try IdP.jwks([ec]).write(to: file)
        let group = MultiThreadedEventLoopGroup.singleton
        let ring = JWKSKeyRing()
        let refresher = JWKSRefresher(source: .file(file.path), ring: ring, settings: IdentityProviderSettings(),
                                      group: group, logger: Logger(label: "test"))
        #expect(try await refresher.reload())
        let hub = HubTokenVerifier(hub: hubAuthority, identityProvider: IdentityProviderVerifier(keys: ring))
        let next = Self.rsa2
        let oldToken = IdP.token(IdP.claims(now: now), key: ec)
        let newToken = IdP.token(IdP.claims(now: now), key: next)
        #expect(try hub.verify(oldToken, now: now).sub == "idp|ana")
        #expect(throws: AuthError.unknownKey) { try hub.verify(newToken, now: now) }
        #expect(try await !refresher.reload(), "unchanged content is not parsed again")

        try IdP.jwks([ec, next]).write(to: file)
        #expect(try await refresher.reload())
        #expect(try hub.verify(oldToken, now: now).sub == "idp|ana")
        #expect(try hub.verify(newToken, now: now).sub == "idp|ana")

        try IdP.jwks([next]).write(to: file)
        try await refresher.reload()
        #expect(throws: AuthError.unknownKey) { try hub.verify(oldToken, now: now) }
        #expect(try hub.verify(newToken, now: now).sub == "idp|ana")

        // A broken file later keeps the keys loaded.
        try Data("{".utf8).write(to: file)
        await #expect(throws: JWKSError.self) { try await refresher.reload() }
        #expect(try hub.verify(newToken, now: now).sub == "idp|ana")
    }

    /// The background refresher picks up a file's change by itself and stops when cancelled.
    @Test func theRefresherPicksUpAChangedFileWithoutBeingAsked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jwks.json")
        try IdP.jwks([ec]).write(to: file)
        let group = MultiThreadedEventLoopGroup.singleton
        var settings = IdentityProviderSettings()
        settings.minRefreshSeconds = 1
        let ring = JWKSKeyRing()
        let refresher = JWKSRefresher(source: .file(file.path), ring: ring, settings: settings, group: group,
                                      logger: Logger(label: "test"))
        try await refresher.reload()
        let task = Task { await refresher.run() }
        defer { task.cancel() }
        try IdP.jwks([ec, rsa]).write(to: file)
        // Generous: a loaded machine (the whole suite in parallel on two cores) can delay the
        // refresher's one-second ticks; the loop ends as soon as the keys are in.
        let deadline = ContinuousClock.now + .seconds(30)
        while ring.keys.count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(ring.keys.compactMap(\.kid) == ["ec-1", "rsa-1"])
        task.cancel()
        await task.value
    }
}
