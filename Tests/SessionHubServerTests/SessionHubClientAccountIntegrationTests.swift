import Foundation
import NIOSSL
import SessionHubClient
import SessionHubServer
import Testing

/// `SessionHubClient.profile()` and `progress()` against a real hub: over `https` through a TLS
/// front when the URL is `wss`, and the API's refusals as `refused(code:)`.
@Suite("SessionHubClient's account calls against a real hub", .timeLimit(.minutes(2)))
struct SessionHubClientAccountIntegrationTests {
    @Test func profileAndProgressOverHTTPSThroughATLSFront() async throws {
        let (certificate, key) = try await SessionHubClientIntegrationTests.throwAwayCertificate()
        let serverTLS = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                                   privateKey: .privateKey(key)))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-account-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence) { port, _ in
            let front = try await TCPProxy(to: port, tls: serverTLS)
            var trusting = TLSConfiguration.makeClientConfiguration()
            trusting.trustRoots = .certificates([certificate])
            let ana = try SessionHubClient(url: "wss://localhost:\(front.port)/ws", tls: trusting, reconnect: nil) {
                HubTestServer.token("ana")
            }
            let profile = try await ana.profile()
            #expect(profile.id == "ana")
            #expect(profile.currentTargetLanguage == "en")
            #expect(try await ana.progress().isEmpty)

            try await ana.connect()
            _ = try await ana.startSolo(scenarioId: "ordering-coffee")
            _ = try await ana.say("Un café con leche, por favor", translation: "A white coffee, please")
            _ = try await ana.end()
            let progress = try #require(try await ana.progress().first)
            #expect(progress.language == "es")
            #expect(progress.totalSessions == 1)
            #expect(progress.totalWordsLearned == 6, "un, café, con, leche, por, favor")
            #expect(progress.wordsDueForReview == 0)

            // The system's trust roots do not know the throw-away certificate.
            let doubting = try SessionHubClient(url: "wss://localhost:\(front.port)/ws", reconnect: nil) { HubTestServer.token("ana") }
            await #expect(throws: SessionHubClientError.self) { try await doubting.profile() }
            await ana.close()
            await front.stop()
        }
    }

    @Test func aHubWithoutStoresRefusesWithNotFound() async throws {
        try await HubTestServer.with { port in
            let client = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws", reconnect: nil) { HubTestServer.token("ana") }
            await #expect(throws: SessionHubClientError.refused(code: "not_found", message: "no such route", retryAfter: nil)) {
                try await client.progress()
            }
        }
    }
}
