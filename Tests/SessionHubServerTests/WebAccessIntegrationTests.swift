import Foundation
import HubDomain
@testable import SessionHubServer
import Testing

/// What the hub offers browsers, on a real hub: CORS on the JSON API for configured origins, the
/// development sign-in of the web player, and the player's static files.
@Suite("Browser access: CORS, development sign-in, /play", .timeLimit(.minutes(2)))
struct WebAccessIntegrationTests {
    private static func withSQLiteHub(_ adjust: @escaping (inout HubServerConfiguration) -> Void,
                                      _ body: (Int) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-web-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/data/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence, adjust: adjust) { port, _ in try await body(port) }
    }

    @Test func configuredOriginsMayCallTheAPIAndOthersMayNot() async throws {
        try await Self.withSQLiteHub({ $0.web.corsOrigins = "https://app.example.com, http://localhost:3000" }) { port in
            let preflight = ["Origin": "https://app.example.com", "Access-Control-Request-Method": "GET",
                             "Access-Control-Request-Headers": "authorization"]
            let allowed = try await HTTPTestClient.request("OPTIONS", port: port, "/api/profile", headers: preflight)
            #expect(allowed.status == 204)
            #expect(allowed.headers["access-control-allow-origin"] == "https://app.example.com")
            #expect(allowed.headers["access-control-allow-headers"]?.contains("Authorization") == true)
            #expect(allowed.headers["access-control-allow-methods"]?.contains("POST") == true)
            #expect(allowed.headers["access-control-allow-credentials"] == nil)

            var other = preflight
            other["Origin"] = "https://evil.example"
            let refused = try await HTTPTestClient.request("OPTIONS", port: port, "/api/profile", headers: other)
            #expect(refused.status == 403)
            #expect(refused.json?["code"] as? String == "origin_not_allowed")
            #expect(refused.headers["access-control-allow-origin"] == nil)

            let token = HubTestServer.token("ana")
            let read = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token,
                                                        headers: ["Origin": "http://localhost:3000"])
            #expect(read.status == 200)
            #expect(read.headers["access-control-allow-origin"] == "http://localhost:3000")
            #expect(read.headers["vary"]?.contains("Origin") == true)
            // Errors reach an allowed page too (it must see the code).
            let unauthorized = try await HTTPTestClient.request("GET", port: port, "/api/profile",
                                                                headers: ["Origin": "http://localhost:3000"])
            #expect(unauthorized.status == 401)
            #expect(unauthorized.headers["access-control-allow-origin"] == "http://localhost:3000")
            let foreign = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token,
                                                           headers: ["Origin": "https://evil.example"])
            #expect(foreign.status == 200, "the answer is sent; the browser keeps it from the page")
            #expect(foreign.headers["access-control-allow-origin"] == nil)
            // Not the JSON API: no CORS.
            let health = try await HTTPTestClient.request("GET", port: port, "/healthz", headers: ["Origin": "http://localhost:3000"])
            #expect(health.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func withoutConfigurationThereAreNoCORSHeaders() async throws {
        try await Self.withSQLiteHub({ _ in }) { port in
            let reply = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: HubTestServer.token("ana"),
                                                         headers: ["Origin": "https://app.example.com"])
            #expect(reply.status == 200)
            #expect(reply.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func devSignInHandsOutAWorkingTokenAndPremiumOnRequest() async throws {
        try await Self.withSQLiteHub({ _ in }) { port in
            let signIn = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "  Ana  ", "premium": true])
            #expect(signIn.status == 200)
            #expect(signIn.headers["cache-control"] == "no-store")
            let token = try #require(signIn.json?["token"] as? String)
            let userId = try #require(signIn.json?["userId"] as? String)
            #expect(DevSignIn.isDevUserId(userId), "\(userId)")
            #expect(signIn.json?["name"] as? String == "Ana")
            #expect(signIn.json?["premium"] as? Bool == true)

            let profile = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token)
            #expect(profile.status == 200)
            #expect(profile.json?["isPremium"] as? Bool == true)
            let client = try await HubTestClient.connect(port: port, token: token)
            let welcome = try #require(await client.expect("welcome"))
            #expect(welcome.object("user")?.string("id") == userId || welcome.string("userId") == userId)
            client.drop()

            // Signing in again as the same player keeps the id; a second player gets another.
            let again = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "Ana", "userId": userId])
            #expect(again.json?["userId"] as? String == userId)
            #expect(again.json?["premium"] as? Bool == false)
            let ben = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "Ben"])
            #expect(ben.json?["userId"] as? String != userId)

            let blank = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "   "])
            #expect(blank.status == 400)
            #expect(blank.json?["code"] as? String == "invalid_name")
            // The profile's limit on a display name holds for the name a dev sign-in puts in its token.
            let longest = String(repeating: "n", count: UserProfile.maxDisplayNameLength)
            let atLimit = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": longest])
            #expect(atLimit.status == 200)
            let tooLong = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": longest + "n"])
            #expect(tooLong.json?["code"] as? String == "invalid_name")
            let control = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "A\u{7}na"])
            #expect(control.json?["code"] as? String == "invalid_name")
            let borrowed = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "Eve", "userId": "ana"])
            #expect(borrowed.status == 400)
            #expect(borrowed.json?["code"] as? String == "invalid_user_id")
            let garbage = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", raw: Data("name=Ana".utf8),
                                                           headers: ["Content-Type": "application/json"])
            #expect(garbage.json?["code"] as? String == "bad_request")
            let get = try await HTTPTestClient.request("GET", port: port, "/api/dev/sign-in")
            #expect(get.status == 405)
        }
    }

    @Test func devSignInCanBeTurnedOff() async throws {
        try await Self.withSQLiteHub({ $0.web.devSignIn = "off" }) { port in
            let signIn = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "Ana"])
            #expect(signIn.status == 404)
            #expect(signIn.json?["code"] as? String == "not_found")
        }
    }

    @Test func devSignInIsForThisMachineOnlyByDefaultAndSettingsAreChecked() throws {
        let auto = WebSettings()
        #expect(try auto.devSignInAudience(host: "127.0.0.1", trustedProxies: []) == .thisMachine)
        #expect(try auto.devSignInAudience(host: "localhost", trustedProxies: []) == .thisMachine)
        #expect(try auto.devSignInAudience(host: "0.0.0.0", trustedProxies: []) == nil)
        #expect(try auto.devSignInAudience(host: "10.1.2.3", trustedProxies: []) == nil)
        #expect(try auto.devSignInAudience(host: "127.example.com", trustedProxies: []) == nil)
        // A proxy in front: the world reaches the loopback port through it.
        #expect(try auto.devSignInAudience(host: "127.0.0.1", trustedProxies: ["127.0.0.1"]) == nil)
        var on = WebSettings()
        on.devSignIn = "on"
        #expect(try on.devSignInAudience(host: "0.0.0.0", trustedProxies: []) == .everyone)
        var bad = WebSettings()
        bad.devSignIn = "yes"
        #expect(throws: SettingsError.self) { try bad.devSignInAudience(host: "127.0.0.1", trustedProxies: []) }
        #expect(WebSettings.isLoopback("127.0.0.1") && WebSettings.isLoopback("127.1.2.3") && WebSettings.isLoopback("::1"))
        #expect(!WebSettings.isLoopback("127.0.0") && !WebSettings.isLoopback("127.0.0.256") && !WebSettings.isLoopback("128.0.0.1"))
    }

    @Test func devSignInRefusesWhatAProxyForwardedAndWhatIsNotJSON() async throws {
        try await Self.withSQLiteHub({ _ in }) { port in
            // What nginx or HAProxy in front of a loopback hub would add.
            for header in ["X-Forwarded-For", "Forwarded", "X-Real-IP"] {
                let proxied = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", body: ["name": "Eve"],
                                                               headers: [header: "203.0.113.9"])
                #expect(proxied.status == 404, "\(header)")
                #expect(proxied.json?["token"] == nil)
            }
            // A cross-site form post cannot send application/json without a preflight.
            let form = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in", raw: Data(#"{"name":"Eve"}"#.utf8),
                                                        headers: ["Content-Type": "text/plain"])
            #expect(form.status == 415)
            #expect(form.json?["code"] as? String == "unsupported_media_type")
            // A name of many bytes a token cannot hold.
            let wide = try await HTTPTestClient.request("POST", port: port, "/api/dev/sign-in",
                                                        body: ["name": String(repeating: "👨‍👩‍👧‍👦", count: 6)])
            #expect(wide.json?["code"] as? String == "invalid_name")
        }
    }

    @Test func originsAreParsedStrictly() throws {
        let policy = try CORSPolicy("https://App.Example.com, http://localhost:3000,http://[::1]:8080")
        #expect(policy.origins == ["https://app.example.com", "http://localhost:3000", "http://[::1]:8080"])
        #expect(policy.allows("HTTPS://APP.EXAMPLE.COM"))
        #expect(!policy.allows("https://app.example.com:444"))
        #expect(try CORSPolicy("*").origins == nil)
        for bad in ["", " , ", "app.example.com", "https://app.example.com/", "https://app.example.com/path", "ftp://x",
                    "https://host:0", "https://host:99999", "https://ho st", "https://host:08080", "null"] {
            #expect(throws: SettingsError.self, "\(bad)") { try CORSPolicy(bad) }
        }
    }

    @Test func thePlayerPageIsServedWithAStrictPolicy() async throws {
        try await HubTestServer.with { port in
            for path in ["/play", "/play/", "/play/play.js", "/play/play.css", "/play/sessionhub.js"] {
                let reply = try await HTTPTestClient.request("GET", port: port, path)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.headers["content-security-policy"]?.contains("script-src 'self'") == true, "\(path)")
                #expect(reply.headers["x-content-type-options"] == "nosniff", "\(path)")
            }
            let page = try await HTTPTestClient.request("GET", port: port, "/play")
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            let module = try await HTTPTestClient.request("GET", port: port, "/play/sessionhub.js")
            #expect(module.headers["content-type"]?.hasPrefix("text/javascript") == true)
            // The module the page is built on is clients/js's (one file, served as it is).
            #expect(String(decoding: module.body, as: UTF8.self).contains("export class SessionHubClient"))
        }
    }
}
