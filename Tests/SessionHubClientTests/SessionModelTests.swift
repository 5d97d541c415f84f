import Foundation
import HubDomain
import HubProtocol
import SessionHubClient
import Testing

/// The client's live model: a snapshot plus each next broadcast once, in order.
@Suite("Session model")
struct SessionModelTests {
    static let sessionId = "8849dad05ac27c207dc9596a7485390e"
    static let ana = ParticipantInfo(userId: "ana", displayName: "Ana", roleName: "Receptionist", mode: .host, isHost: true, connected: true)
    static let ben = ParticipantInfo(userId: "ben", displayName: "Ben", roleName: "Guest", mode: .client, isHost: false, connected: true)

    static func message(_ text: String) throws -> ServerMessage {
        try ServerMessageDecoder().decode(text)
    }

    static func broadcast(_ seq: Int, _ event: SessionEvent, session: String = sessionId) throws -> ServerMessage {
        try message(ServerMessageEncoder.broadcast(SessionEnvelope(sessionId: session, seq: seq, event: event)))
    }

    static func model() throws -> SessionModel {
        let scenario = try #require(try ScenarioCatalog.load().scenario(id: "hotel-check-in"))
        let snapshot = SessionSnapshot(sessionId: sessionId, scenario: scenario, joinCode: "SVT2CH", hostId: "ana", maxPlayers: 4,
                                       startedAt: 1_000, participants: [ana], lines: [], recasts: [], seq: 1, you: ana)
        guard case .joined(let joined) = try message(ServerMessageEncoder.reply(.joined(snapshot, resumeToken: "t", ref: "j"))) else {
            throw SessionHubClientError.transport("not joined")
        }
        return SessionModel(joined.session)
    }

    @Test("Each next broadcast is applied: members, lines, recasts and their acceptance, host, stats")
    func applies() throws {
        var model = try Self.model()
        #expect(model.seq == 1)
        #expect(model.joinCode == "SVT2CH")
        let line = DialogLine(id: "l1", speakerId: "ben", roleName: "Guest", textNative: "Bonjour", textTranslated: "Hello", timestamp: 2)
        let recast = Recast(id: "r1", lineId: "l1", authorId: "ana", speakerId: "ben", correctedText: "Bonjour !",
                            explanation: nil, issueTypes: [.naturalness], timestamp: 3)
        let events: [SessionEvent] = [
            .participants(change: PresenceChange(userId: "ben", kind: .joined), participants: [Self.ana, Self.ben]),
            .line(line, ref: "s1"),
            .recast(recast, ref: "r"),
            .recastAccepted(recastId: "r1", lineId: "l1", userId: "ben", ref: "a"),
            .hostChanged(userId: "ben"),
        ]
        for (index, event) in events.enumerated() {
            #expect(model.apply(try Self.broadcast(index + 2, event)) == .applied)
        }
        #expect(model.seq == 6)
        #expect(model.participants.map(\.userId) == ["ana", "ben"])
        #expect(model.lines == [line])
        #expect(model.recasts.map(\.accepted) == [true])
        #expect(model.hostId == "ben")
    }

    @Test("A repeated broadcast, another session's, a gap and a reply change nothing")
    func ignores() throws {
        var model = try Self.model()
        let hostChange = try Self.broadcast(2, .hostChanged(userId: "ben"))
        #expect(model.apply(hostChange) == .applied)
        let applied = model
        #expect(model.apply(hostChange) == .duplicate)
        #expect(model.apply(try Self.broadcast(3, .hostChanged(userId: "ana"), session: "0000dad05ac27c207dc9596a7485390e")) == .foreign)
        #expect(model.apply(try Self.broadcast(5, .hostChanged(userId: "ana"))) == .gap(expected: 3, got: 5))
        #expect(model.apply(try Self.message(#"{"type":"pong","ref":"1","serverTime":5}"#)) == .notABroadcast)
        #expect(model == applied)
    }

    @Test("A model goes through JSON (a client's store) and comes back equal, live figures included")
    func codable() throws {
        var model = try Self.model()
        let figures = ParticipantStats(
            userId: "ana",
            stats: SessionStats(sessionId: Self.sessionId, startedAt: 1_000, endedAt: nil, mode: .host, scenarioId: "hotel-check-in",
                                linesSpoken: 2, wordsEncountered: 9, newVocabulary: 4, errorsDetected: 1, errorsCorrected: 0, xpEarned: 12,
                                xpBreakdown: XPBreakdown(dialogCompletion: 10, vocabularyBonus: 2, accuracyBonus: 0,
                                                         collaborationBonus: 0, streakBonus: 0)),
            collaboration: CollaborationStats(successfulRepairs: 0, helpGiven: 1, teamWins: 0),
            weakSpots: ["grammar": 1])
        #expect(model.apply(try Self.broadcast(2, .stats([figures]))) == .applied)
        let seat = SavedSeat(resumeToken: "t", session: model, unsentLines: [SavedSeat.Line(clientId: "c1", text: "Hola", translation: "")])
        let back = try JSONDecoder().decode(SavedSeat.self, from: JSONEncoder().encode(seat))
        #expect(back == seat)
    }
}
