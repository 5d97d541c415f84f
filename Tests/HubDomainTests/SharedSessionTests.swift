import HubDomain
import Testing

@Suite("Shared sessions")
struct SharedSessionTests {
    static let alphabet = Set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    static func info(_ user: HubUser, _ role: String, _ mode: SessionMode, host: Bool = false, connected: Bool = true) -> ParticipantInfo {
        ParticipantInfo(userId: user.id, displayName: user.displayName, roleName: role, mode: mode, isHost: host, connected: connected)
    }

    static let everyone = [
        info(Users.alice, "Barista", .host, host: true),
        info(Users.bob, "Customer", .client),
        info(Users.carol, "Barista", .client),
        info(Users.dave, "Customer", .client),
    ]

    @Test func hostRepliesJoinedWithAJoinCode() async throws {
        let h = Harness()
        let alice = try await h.host(ref: "h-1")
        let joined = try #require(alice.link.joined)
        let code = try #require(alice.session.joinCode)
        #expect(alice.session.isShared)
        #expect(joined.ref == "h-1")
        #expect(joined.snapshot.joinCode == code)
        #expect(joined.snapshot.hostId == Users.alice.id)
        #expect(joined.snapshot.maxPlayers == 4)
        #expect(joined.snapshot.seq == 1)
        #expect(joined.snapshot.participants == [Self.everyone[0]])
        #expect(joined.snapshot.you == Self.everyone[0])
    }

    @Test func joinCodeHasSixUnambiguousCharacters() async throws {
        let h = Harness()
        var codes = Set<String>()
        for index in 0..<40 {
            let member = try await h.host(HubUser(id: "host-\(index)", displayName: "Host \(index)"))
            let code = try #require(member.session.joinCode)
            #expect(code.count == 6)
            #expect(code.allSatisfy { Self.alphabet.contains($0) }, "\(code)")
            codes.insert(code)
        }
        #expect(codes.count == 40)
    }

    @Test func joinCodeLengthIsConfigurable() async throws {
        var configuration = HubConfiguration()
        configuration.joinCodeLength = 9
        let h = Harness(configuration: configuration)
        #expect(try await h.host().session.joinCode?.count == 9)
    }

    @Test func maxPlayersMustFitTheScenarioAndTheHub() async throws {
        let h = Harness()
        #expect(await errorCode { _ = try await h.host(maxPlayers: 1) } == .invalidField)
        #expect(await errorCode { _ = try await h.host(maxPlayers: 5) } == .invalidField)
        #expect(await h.hub.liveSessionCount == 0)
        let alice = try await h.host(maxPlayers: 2)
        #expect(alice.snapshot?.maxPlayers == 2)

        var configuration = HubConfiguration()
        configuration.maxPlayersPerSession = 3
        let small = Harness(configuration: configuration)
        #expect(try await small.host().snapshot?.maxPlayers == 3)
        #expect(await errorCode { _ = try await small.host(Users.bob, maxPlayers: 4) } == .invalidField)
    }

    @Test func rolesAreAssignedInScenarioOrder() async throws {
        let members = try await Harness().group(4)
        let participants = await members[0].session.participants()
        #expect(participants == Self.everyone)
        for (member, expected) in zip(members, Self.everyone) {
            #expect(member.snapshot?.you == expected)
        }
    }

    @Test func aVacatedRoleIsTakenByTheNextJoiner() async throws {
        let h = Harness()
        let members = try await h.group(2)
        try await members[1].session.leave(userId: Users.bob.id)
        let carol = try await h.join(Users.carol, code: try #require(members[0].session.joinCode))
        #expect(carol.snapshot?.you.roleName == "Customer")
    }

    @Test
    func rolesStayBalancedWhenAPlayerIsReplaced() async throws {
        let h = Harness()
        let members = try await h.group(4) // Barista, Customer, Barista, Customer
        try await members[1].session.leave(userId: Users.bob.id) // a Customer leaves
        let erin = try await h.join(Users.erin, code: try #require(members[0].session.joinCode))
        // Two Baristas and one Customer remain: the newcomer should be the second Customer.
        #expect(erin.snapshot?.you.roleName == "Customer")
    }

    @Test func joinedSnapshotHoldsTheStateSoFar() async throws {
        let h = Harness()
        let members = try await h.group(2)
        try await members[0].say("Hola", translated: "Hello")
        let code = try #require(members[0].session.joinCode)
        let carol = try await h.join(Users.carol, code: code, ref: "j-3")
        let joined = try #require(carol.link.joined)
        #expect(joined.ref == "j-3")
        #expect(joined.snapshot.sessionId == members[0].session.id)
        #expect(joined.snapshot.joinCode == code)
        #expect(joined.snapshot.hostId == Users.alice.id)
        #expect(joined.snapshot.participants == Array(Self.everyone.prefix(3)))
        #expect(joined.snapshot.you == Self.everyone[2])
        #expect(joined.snapshot.lines.map(\.textNative) == ["Hola"])
        #expect(joined.snapshot.seq == 4) // host joined, bob joined, line, carol joined
        #expect(carol.session === members[0].session)
    }

    @Test func othersAreToldOfEachJoin() async throws {
        let members = try await Harness().group(4)
        let (alice, bob, dave) = (members[0], members[1], members[3])
        #expect(alice.link.presenceChanges == [
            PresenceChange(userId: Users.bob.id, kind: .joined),
            PresenceChange(userId: Users.carol.id, kind: .joined),
            PresenceChange(userId: Users.dave.id, kind: .joined),
        ])
        #expect(bob.link.presenceChanges.map(\.userId) == [Users.carol.id, Users.dave.id])
        #expect(dave.link.delivered.isEmpty)
        guard case .participants(_, let list)? = alice.link.events.last else {
            Issue.record("expected a participants broadcast")
            return
        }
        #expect(list == Self.everyone)
        guard case .participants(_, let afterBob)? = alice.link.events.first else { return }
        #expect(afterBob == Array(Self.everyone.prefix(2)))
    }

    @Test func seqIsContiguousForEveryMember() async throws {
        let h = Harness()
        let members = try await h.group(4)
        for (index, member) in members.enumerated() {
            try await member.say("Frase número \(index)")
        }
        h.clock.advance(LiveSession.statsClockSpacing)
        await h.hub.tick()
        let last = await members[0].session.currentSeq
        #expect(last == 4 + 4 + 1)
        for member in members {
            let first = try #require(member.snapshot?.seq)
            #expect(member.link.seqs == Array((first + 1)...last), "\(member.id)")
        }
    }

    @Test func everyMemberReceivesEachLineAndTheSameEncodedEvent() async throws {
        let members = try await Harness().group(4)
        try await members[2].say("¿Qué le pongo?", translated: "What can I get you?", ref: "say-42")
        var copies: [TestEncodedEvent] = []
        for member in members {
            let copy = try #require(member.link.delivered.last)
            copies.append(copy)
            guard case .line(let line, let ref) = copy.event else {
                Issue.record("\(member.id) got \(copy.event)")
                continue
            }
            #expect(line.speakerId == Users.carol.id)
            #expect(line.roleName == "Barista")
            #expect(line.textNative == "¿Qué le pongo?")
            #expect(ref == "say-42")
        }
        // Encoded once, the same value handed to every member.
        #expect(copies.allSatisfy { $0 === copies[0] })
    }

    @Test func joinerGetsItsReplyBeforeAnyBroadcast() async throws {
        let h = Harness()
        let members = try await h.group(2)
        try await members[0].say("uno")
        for member in members {
            guard case .reply? = member.link.records.first else {
                Issue.record("\(member.id): first record is \(String(describing: member.link.records.first))")
                continue
            }
        }
    }

    @Test func fifthPlayerFindsTheSessionFull() async throws {
        let h = Harness()
        let members = try await h.group(4)
        let code = try #require(members[0].session.joinCode)
        let link = RecordingLink()
        let error = await errorCode { _ = try await h.hub.join(user: Users.erin, code: code, link: link, ref: nil) }
        #expect(error == .sessionFull)
        #expect(link.records.isEmpty)
        #expect(await members[0].session.participants().count == 4)
        #expect(await h.hub.session(of: Users.erin.id) == nil)
        _ = try await h.solo(Users.erin) // the failed join held no seat
    }

    @Test func hostChosenMaxPlayersIsEnforced() async throws {
        let h = Harness()
        let members = try await h.group(2, maxPlayers: 2)
        let code = try #require(members[0].session.joinCode)
        #expect(await errorCode { _ = try await h.join(Users.carol, code: code) } == .sessionFull)
    }

    @Test func unknownCodeIsRefused() async throws {
        let h = Harness()
        _ = try await h.host()
        #expect(await errorCode { _ = try await h.join(Users.bob, code: "ZZZZZZ") } == .unknownJoinCode)
        #expect(await errorCode { _ = try await h.join(Users.bob, code: "") } == .unknownJoinCode)
        #expect(await h.hub.session(of: Users.bob.id) == nil)
    }

    @Test func codeIsCaseInsensitiveAndIgnoresSpacesAndDashes() async throws {
        let h = Harness()
        let alice = try await h.host()
        let code = try #require(alice.session.joinCode)
        let typed = code.prefix(3).lowercased() + " - " + code.dropFirst(3).lowercased()
        let bob = try await h.join(Users.bob, code: typed)
        #expect(bob.session === alice.session)
    }

    @Test func aSeatedUserCannotJoinOrHostAgain() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let code = try #require(members[0].session.joinCode)
        #expect(await errorCode { _ = try await h.join(Users.bob, code: code) } == .alreadyInSession)
        #expect(await errorCode { _ = try await h.join(Users.alice, code: code) } == .alreadyInSession)
        #expect(await errorCode { _ = try await h.host(Users.bob) } == .alreadyInSession)
        #expect(await members[0].session.participants().count == 2)
        // Bob's seat survives the refused attempts.
        #expect(await h.hub.session(of: Users.bob.id) === members[0].session)
    }

    @Test func codeOfAnEndedSessionIsUnknown() async throws {
        let h = Harness()
        let alice = try await h.host()
        let code = try #require(alice.session.joinCode)
        try await alice.session.end(by: Users.alice.id)
        #expect(await errorCode { _ = try await h.join(Users.bob, code: code) } == .unknownJoinCode)
    }

    @Test func drainingHubAcceptsNoNewSessionsOrJoins() async throws {
        let h = Harness()
        let alice = try await h.host()
        let code = try #require(alice.session.joinCode)
        await h.hub.endAll(cause: .serverShutdown)
        #expect(await alice.session.summary?.cause == .serverShutdown)
        #expect(await h.hub.liveSessionCount == 0)
        #expect(await errorCode { _ = try await h.join(Users.bob, code: code) } == .hubFull)
        #expect(await errorCode { _ = try await h.host(Users.carol) } == .hubFull)
        #expect(await errorCode { _ = try await h.solo(Users.dave) } == .hubFull)
    }
}
