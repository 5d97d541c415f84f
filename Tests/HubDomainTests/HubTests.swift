import HubDomain
import Testing

@Suite("Hub registry")
struct HubTests {
    @Test func tracksSessionsAndSeats() async throws {
        let h = Harness()
        let solo = try await h.solo(Users.erin)
        let shared = try await h.group(2)
        #expect(await h.hub.liveSessionCount == 2)
        let ids = Set(await h.hub.liveSessions.map(\.id))
        #expect(ids == [solo.session.id, shared[0].session.id])
        #expect(await h.hub.session(of: Users.bob.id) === shared[0].session)
        #expect(await h.hub.session(id: "not-a-session") == nil)
        #expect(h.hub.catalog.scenario(id: Fixtures.scenarioId) != nil)
    }

    @Test func tickReachesEverySession() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 100
        let h = Harness(configuration: configuration)
        let one = try await h.solo(Users.alice)
        let two = try await h.solo(Users.bob)
        for member in [one, two] { await member.session.disconnected(userId: member.id, linkId: member.link.linkId) }
        h.clock.advance(100)
        await h.hub.tick()
        #expect(await one.session.isOver)
        #expect(await two.session.isOver)
        #expect(await h.hub.liveSessionCount == 0)
    }

    @Test func slicedTicksReachEachSessionInItsOwnSliceOnly() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 100
        let h = Harness(configuration: configuration)
        var members: [Member] = []
        for user in [Users.alice, Users.bob, Users.carol, Users.dave, Users.erin] { members.append(try await h.solo(user)) }
        for member in members { await member.session.disconnected(userId: member.id, linkId: member.link.linkId) }
        h.clock.advance(100)
        let slices = 4
        for slice in 0..<slices {
            await h.hub.tick(slice: slice, of: slices)
            for member in members {
                let mine = Hub.tickSlot(of: member.session.id, slices: slices)
                #expect(await member.session.isOver == (mine <= slice), "slot \(mine) after slice \(slice)")
            }
        }
        #expect(await h.hub.liveSessionCount == 0)
        // Slots spread hex ids evenly and stay in range.
        #expect(Hub.tickSlot(of: "000000ff", slices: 10) == 0)
        #expect(Hub.tickSlot(of: "00000b", slices: 10) == 1)
        #expect(Hub.tickSlot(of: "not-hex", slices: 10) < 10)
        #expect(Hub.tickSlot(of: "abc", slices: 1) == 0)
    }

    @Test func endAllEndsEverySessionAndWaitsForTheirHistory() async throws {
        let h = Harness(premium: [Users.alice.id, Users.bob.id, Users.carol.id])
        let solo = try await h.solo(Users.carol)
        let shared = try await h.group(2)
        try await solo.say("hola")
        await h.hub.endAll(cause: .serverShutdown)
        #expect(await h.hub.liveSessionCount == 0)
        #expect(h.history.sessions(of: Users.carol.id).map(\.cause) == [.serverShutdown])
        #expect(h.history.sessions(of: Users.alice.id).map(\.sessionId) == [shared[0].session.id])
        #expect(h.history.sessions(of: Users.bob.id).count == 1)
        #expect(shared[1].link.endSummary?.cause == .serverShutdown)
        // Seats are released even though new sessions are refused.
        #expect(await h.hub.session(of: Users.alice.id) == nil)
    }

    @Test func leavingFreesTheUserForAnotherSession() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[1].session.leave(userId: Users.bob.id)
        let bobAgain = try await h.host(Users.bob)
        #expect(bobAgain.session !== members[0].session)
        #expect(await h.hub.liveSessionCount == 2)
    }

    @Test func userWhoLeftCanJoinBackAndKeepsTheirFigures() async throws {
        let h = Harness()
        let members = try await h.group(2)
        try await members[1].say("uno")
        try await members[1].session.leave(userId: Users.bob.id)
        let code = try #require(members[0].session.joinCode)
        let back = try await h.join(Users.bob, code: code)
        #expect(back.snapshot?.you.roleName == "Customer")
        try await back.say("dos")
        try await members[0].session.end(by: Users.alice.id)
        let summary = try #require(back.link.endSummary)
        #expect(summary.participants.map(\.userId) == [Users.alice.id, Users.bob.id])
        #expect(summary.participants.last?.stats.linesSpoken == 2)
    }
}
