import HubDomain
import HubProtocol
import Testing

/// The journal keeps each broadcast's wire text; reading it back must give the very event
/// that was encoded, for every journaled kind and awkward text.
@Suite("Broadcast decoder")
struct BroadcastDecoderTests {
    static let stats = ParticipantStats(
        userId: "ana",
        stats: SessionStats(sessionId: "s", startedAt: 10, endedAt: nil, mode: .client, scenarioId: "ordering-coffee",
                            linesSpoken: 3, wordsEncountered: 17, newVocabulary: 9, errorsDetected: 1, errorsCorrected: 1,
                            xpEarned: 42, xpBreakdown: XPBreakdown(dialogCompletion: 30, vocabularyBonus: 9, accuracyBonus: 0,
                                                                   collaborationBonus: 2, streakBonus: 1)),
        collaboration: CollaborationStats(successfulRepairs: 1, helpGiven: 2, teamWins: 0),
        weakSpots: ["grammar": 2, "vocabulary": 1])

    static var events: [SessionEvent] {
        let line = DialogLine(id: "l1", speakerId: "ana", roleName: "Barista", textNative: "Un café, \"s'il\" vous plaît 🙂\n\\ \u{1}",
                              textTranslated: "", timestamp: 1_700_000_000_123, clientId: "c-1")
        let plain = DialogLine(id: "l2", speakerId: "bob", roleName: "Client", textNative: "Merci", textTranslated: "Thanks",
                               timestamp: 5, clientId: nil)
        let recast = Recast(id: "r1", lineId: "l1", authorId: "bob", speakerId: "ana", correctedText: "¡Hola!",
                            explanation: "tone", issueTypes: [.grammar, .naturalness], timestamp: 7)
        let info = ParticipantInfo(userId: "ana", displayName: "Ana \u{2028}", roleName: "Barista", mode: .host, isHost: true,
                                   connected: false)
        return [
            .participants(change: PresenceChange(userId: "ana", kind: .disconnected), participants: [info]),
            .participants(change: PresenceChange(userId: "bob", kind: .left), participants: []),
            .line(line, ref: "req-1"),
            .line(plain, ref: nil),
            .recast(recast, ref: nil),
            .recastAccepted(recastId: "r1", lineId: "l1", userId: "ana", ref: "9"),
            .hostChanged(userId: "bob"),
            .stats([stats]),
        ]
    }

    @Test("Every journaled kind reads back as the event that was encoded")
    func roundTrip() throws {
        for (index, event) in Self.events.enumerated() {
            let text = ServerMessageEncoder.broadcast(SessionEnvelope(sessionId: "0123456789abcdef0123456789abcdef",
                                                                      seq: index + 1, event: event))
            #expect(try BroadcastDecoder().decode(Array(text.utf8)) == event, "\(text)")
        }
    }

    @Test("Text that is not a journaled broadcast is refused")
    func refusals() {
        let ended = ServerMessageEncoder.broadcast(SessionEnvelope(sessionId: "s", seq: 3, event: .ended(
            SessionEndSummary(cause: .hostEnded, endedAt: 1, durationSeconds: 1, goalReached: false, participants: [],
                              history: [:], ref: nil))))
        for text in [ended, #"{"type":"pong","ref":"1","serverTime":1}"#, "{", #"{"type":"line","seq":1}"#] {
            #expect(throws: (any Error).self) { try BroadcastDecoder().decode(Array(text.utf8)) }
        }
    }
}
