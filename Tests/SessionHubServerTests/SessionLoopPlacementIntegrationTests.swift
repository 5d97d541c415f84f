import Foundation
import SessionHubServer
import Testing
import WebSocket

/// With two event loops, a session runs on its host's loop and every member that joins or
/// resumes from the other loop moves there (``SocketParticipantLink/settle(near:)``): the real
/// server on loopback, real sockets with permessage-deflate, lines in both directions.
@Suite("Session loop placement", .timeLimit(.minutes(2)))
struct SessionLoopPlacementIntegrationTests {
    private static func sample(_ text: String, _ name: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private func player(_ port: Int, _ user: String) async throws -> HubTestClient {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
        _ = try #require(await client.expect("welcome"))
        return client
    }

    @Test func membersMoveToTheirSessionsLoopAndMissNothing() async throws {
        let server = try HubServer(configuration: HubServerConfiguration(port: 0, threads: 2, secret: HubTestServer.secret))
        let port = try await server.start()
        defer { Task { await server.shutdown() } }
        let host = try await player(port, "hal")
        host.send(["type": "host", "scenarioId": "ordering-coffee"])
        let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
        // Connections take the two loops in turn: of three guests, at least one lands on the
        // loop the session does not run on, and moves.
        var guests: [HubTestClient] = []
        var tokens: [String] = []
        for user in ["gia", "gus", "gwen"] {
            let guest = try await player(port, user)
            guest.send(["type": "join", "code": code])
            let joined = try #require(await guest.expect("joined"))
            tokens.append(try #require(joined.string("resumeToken")))
            guests.append(guest)
        }
        let moved = Self.sample(await server.metricsText(), "sessionhub_connections_moved_total") ?? 0
        #expect(moved >= 1)
        // Lines from everyone reach everyone, each once, in seq order.
        let everyone = [host] + guests
        for (index, member) in everyone.enumerated() {
            member.send(["type": "say", "textNative": "Hola \(index)", "textTranslated": "Hi \(index)"])
            _ = try #require(await member.expect("line"))
            for other in everyone where other !== member { _ = try #require(await other.expect("line")) }
        }
        // A guest back on a new connection resumes, moving again if it landed elsewhere, and
        // gets the lines in order.
        guests[0].drop()
        let back = try await player(port, "gia")
        back.send(["type": "resume", "resumeToken": tokens[0], "lastSeq": 0])
        _ = try #require(await back.expect("resumed"))
        var replayed: [String] = []
        var seqs: [Int] = []
        while replayed.count < everyone.count, let line = await back.expect("line") {
            replayed.append(line.object("line")?.string("textNative") ?? "")
            seqs.append(line.int("seq") ?? -1)
        }
        #expect(replayed == (0..<everyone.count).map { "Hola \($0)" })
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        back.send(["type": "say", "textNative": "Otra vez", "textTranslated": "Again"])
        _ = try #require(await back.expect("line"))
        for other in [host, guests[1], guests[2]] {
            let line = try #require(await other.expect("line"))
            #expect(line.object("line")?.string("textNative") == "Otra vez")
        }
        await server.shutdown()
    }
}
