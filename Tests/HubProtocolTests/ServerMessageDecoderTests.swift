import Foundation
import HubDomain
@testable import HubProtocol
import Testing

@Suite("Server message decoding (bot side)")
struct ServerMessageDecoderTests {
    let decoder = ServerMessageDecoder()
    static let sessionId = "8849dad05ac27c207dc9596a7485390e"

    private func scenario() throws -> Scenario {
        try #require(try ScenarioCatalog.load().scenario(id: "hotel-check-in"))
    }

    private let ana = ParticipantInfo(userId: "ana", displayName: "Ana", roleName: "Receptionist", mode: .host, isHost: true, connected: true)
    private let ben = ParticipantInfo(userId: "ben", displayName: "Bén \"B\"", roleName: "Guest", mode: .client, isHost: false, connected: false)
    private let line = DialogLine(id: "l2", speakerId: "ben", roleName: "Guest", textNative: "Bonjour, je ai une réservation.",
                                  textTranslated: "Hello, I have a booking.", timestamp: 1_795_435_967_960)
    private let recast = Recast(id: "r1", lineId: "l2", authorId: "ana", speakerId: "ben", correctedText: "Bonjour, j'ai une réservation.",
                                explanation: "je + ai → j'ai", issueTypes: [.grammar, .sentenceStructure], timestamp: 1_795_435_968_313)

    private func figures(_ user: String, endedAt: Int64?) -> ParticipantStats {
        ParticipantStats(
            userId: user,
            stats: SessionStats(sessionId: Self.sessionId, startedAt: 1_795_435_964_891, endedAt: endedAt, mode: .client,
                                scenarioId: "hotel-check-in", linesSpoken: 2, wordsEncountered: 28, newVocabulary: 27,
                                errorsDetected: 1, errorsCorrected: 1, xpEarned: 73,
                                xpBreakdown: XPBreakdown(dialogCompletion: 20, vocabularyBonus: 50, accuracyBonus: 0,
                                                         collaborationBonus: 0, streakBonus: 3)),
            collaboration: CollaborationStats(successfulRepairs: 1, helpGiven: 2, teamWins: 0),
            weakSpots: ["grammar": 1, "vocabulary": 2])
    }

    private func snapshot() throws -> SessionSnapshot {
        SessionSnapshot(sessionId: Self.sessionId, scenario: try scenario(), joinCode: "SVT2CH", hostId: "ana", maxPlayers: 4,
                        startedAt: 1_795_435_964_891, participants: [ana, ben], lines: [line],
                        recasts: [recast, Recast(id: "r2", lineId: "l2", authorId: "ana", speakerId: "ben", correctedText: "Oui",
                                                 explanation: nil, issueTypes: [.naturalness], timestamp: 5, accepted: true)],
                        seq: 9, you: ben)
    }

    private func broadcast(_ seq: Int, _ event: SessionEvent) throws -> ServerMessage {
        try decoder.decode(ServerMessageEncoder.broadcast(SessionEnvelope(sessionId: Self.sessionId, seq: seq, event: event)))
    }

    @Test("joined and resumed carry the full snapshot: scenario roles and hints, joinCode, you, seq")
    func replies() throws {
        let state = try snapshot()
        guard case .joined(let joined) = try decoder.decode(ServerMessageEncoder.reply(.joined(state, resumeToken: "tok", ref: "j1"))) else {
            Issue.record("not joined"); return
        }
        #expect(joined.ref == "j1")
        #expect(joined.resumeToken == "tok")
        #expect(joined.session.sessionSnapshot == state)
        #expect(joined.session.scenario.roles.map(\.name) == ["Receptionist", "Guest", "Porter"])
        #expect(joined.session.scenario.hints.count == state.scenario.hints.count)
        #expect(joined.session.joinCode == "SVT2CH")
        #expect(joined.session.you == ben)
        #expect(joined.session.seq == 9)

        let replay = try decoder.decode(ServerMessageEncoder.reply(.resumed(replayed: 4, snapshot: nil, resumeToken: "new", ref: nil)))
        guard case .resumed(let resumed) = replay else { Issue.record("not resumed"); return }
        #expect(resumed.mode == .replay)
        #expect(resumed.replayed == 4)
        #expect(resumed.session == nil)
        #expect(resumed.resumeToken == "new")
        #expect(replay.ref == nil)

        let full = try decoder.decode(ServerMessageEncoder.reply(.resumed(replayed: 0, snapshot: state, resumeToken: "n2", ref: "r")))
        guard case .resumed(let snap) = full else { Issue.record("not resumed"); return }
        #expect(snap.mode == .snapshot)
        #expect(snap.session?.sessionSnapshot == state)
        #expect(full.ref == "r")
        #expect(full.seq == nil)
    }

    @Test("welcome, error, scenarios, pong and left")
    func connectionReplies() throws {
        let welcome = try decoder.decode(ServerMessageEncoder.welcome(
            userId: "ana", displayName: "Ana", serverTime: 1_795_435_964_537,
            limits: [("maxTextLength", 500), ("graceSeconds", 30)],
            resumable: SessionPlacement(sessionId: Self.sessionId, owner: NodeLocation(nodeId: "n2", publicURL: "ws://front/node/n2/ws")),
            localNode: "n1", ref: "h"))
        guard case .welcome(let w) = welcome else { Issue.record("not welcome"); return }
        #expect(w.userId == "ana" && w.displayName == "Ana" && w.protocolVersion == 1)
        #expect(w.serverTime == 1_795_435_964_537)
        #expect(w.limits == ["maxTextLength": 500, "graceSeconds": 30])
        #expect(w.resumableSessionId == Self.sessionId)
        #expect(w.resumableNode == "n2" && w.resumableUrl == "ws://front/node/n2/ws")
        #expect(welcome.ref == "h")

        let noSeat = try decoder.decode(ServerMessageEncoder.welcome(userId: "a", displayName: "", serverTime: 0, limits: [], resumable: nil, localNode: "n1"))
        guard case .welcome(let w2) = noSeat else { Issue.record("not welcome"); return }
        #expect(w2.resumableSessionId == nil && w2.ref == nil && w2.resumableNode == nil && w2.resumableUrl == nil)

        #expect(try decoder.decode(ServerMessageEncoder.error(code: "not_allowed", message: "you cannot recast your own line", ref: "e-7"))
            == .error(try errorReply(#"{"type":"error","ref":"e-7","code":"not_allowed","message":"you cannot recast your own line"}"#)))
        let redirect = ServerMessageEncoder.error(code: "session_elsewhere", message: "go", ref: "j",
                                                  location: NodeLocation(nodeId: "n2", publicURL: "ws://front/node/n2/ws"))
        #expect(redirect == #"{"type":"error","ref":"j","code":"session_elsewhere","message":"go","node":"n2","url":"ws://front/node/n2/ws"}"#)
        guard case .error(let moved) = try decoder.decode(redirect) else { Issue.record("not error"); return }
        #expect(moved.node == "n2" && moved.url == "ws://front/node/n2/ws" && moved.retryAfter == nil)

        let catalogue = try ScenarioCatalog.load().all
        guard case .scenarios(let list) = try decoder.decode(ServerMessageEncoder.scenarios(catalogue, ref: "c")) else {
            Issue.record("not scenarios"); return
        }
        #expect(list.scenarios == catalogue)
        #expect(list.ref == "c")

        guard case .pong(let pong) = try decoder.decode(ServerMessageEncoder.pong(ref: "p", serverTime: 42)) else { Issue.record("not pong"); return }
        #expect(pong.serverTime == 42 && pong.ref == "p")

        for (ref, reason) in [("l", "left"), (nil, "ended"), (nil, "replaced"), (nil, "removed")] as [(String?, String)] {
            guard case .left(let left) = try decoder.decode(ServerMessageEncoder.left(ref: ref, reason: reason)) else {
                Issue.record("not left"); continue
            }
            #expect(left.ref == ref && left.reason == reason)
        }
    }

    private func errorReply(_ text: String) throws -> ServerMessage.ErrorReply {
        guard case .error(let reply) = try decoder.decode(text) else { throw ServerMessageDecoder.Failure.missingType }
        return reply
    }

    @Test("Every broadcast round-trips with sessionId, seq and ref")
    func broadcasts() throws {
        let presence = try broadcast(12, .participants(change: PresenceChange(userId: "ben", kind: .disconnected), participants: [ana, ben]))
        guard case .participants(let p) = presence else { Issue.record("not participants"); return }
        #expect(p.change == PresenceChange(userId: "ben", kind: .disconnected))
        #expect(p.participants == [ana, ben])
        #expect(presence.seq == 12 && presence.sessionId == Self.sessionId && presence.ref == nil)

        let spoken = try broadcast(8, .line(line, ref: "s1"))
        guard case .line(let l) = spoken else { Issue.record("not line"); return }
        #expect(l.line == line && l.ref == "s1" && l.seq == 8)

        let unacknowledged = try broadcast(8, .line(line, ref: nil))
        #expect(unacknowledged.ref == nil)

        guard case .recast(let r) = try broadcast(9, .recast(recast, ref: "rc1")) else { Issue.record("not recast"); return }
        #expect(r.recast == recast && r.ref == "rc1")
        var plain = recast
        plain.explanation = nil
        guard case .recast(let r2) = try broadcast(9, .recast(plain, ref: nil)) else { Issue.record("not recast"); return }
        #expect(r2.recast.explanation == nil)

        let accepted = try broadcast(10, .recastAccepted(recastId: "r1", lineId: "l2", userId: "ben", ref: "a1"))
        #expect(accepted == .recastAccepted(try acceptedBroadcast(
            #"{"type":"recastAccepted","sessionId":"\#(Self.sessionId)","seq":10,"ref":"a1","recastId":"r1","lineId":"l2","userId":"ben"}"#)))

        guard case .hostChanged(let h) = try broadcast(13, .hostChanged(userId: "ben")) else { Issue.record("not hostChanged"); return }
        #expect(h.userId == "ben" && h.seq == 13)

        let live = [figures("ana", endedAt: nil), figures("ben", endedAt: nil)]
        guard case .stats(let s) = try broadcast(11, .stats(live)) else { Issue.record("not stats"); return }
        #expect(s.participants == live)
        #expect(s.participants.first?.stats.endedAt == nil)
    }

    private func acceptedBroadcast(_ text: String) throws -> ServerMessage.RecastAcceptedBroadcast {
        guard case .recastAccepted(let value) = try decoder.decode(text) else { throw ServerMessageDecoder.Failure.missingType }
        return value
    }

    @Test("ended carries every participant's final stats, collaboration, weak spots and history result")
    func ended() throws {
        let finals = [figures("ana", endedAt: 1_795_435_973_784), figures("ben", endedAt: 1_795_435_973_784), figures("cat", endedAt: 1)]
        let summary = SessionEndSummary(cause: .goalReached, endedAt: 1_795_435_973_784, durationSeconds: 8, goalReached: true,
                                        participants: finals,
                                        history: ["ana": .success, "ben": .error(.featureLocked)], ref: "4")
        let message = try broadcast(19, .ended(summary))
        guard case .ended(let ended) = message else { Issue.record("not ended"); return }
        #expect(ended.cause == .goalReached)
        #expect(ended.endedAt == 1_795_435_973_784)
        #expect(ended.durationSeconds == 8)
        #expect(ended.goalReached)
        #expect(ended.ref == "4" && message.seq == 19)
        #expect(ended.participants.map(\.figures) == finals)
        #expect(ended.participants.map(\.history.saveResult) == [.success, .error(.featureLocked), .error(.networkError)])
        #expect(ended.participants.map(\.history.description) == ["Success", "Error(featureLocked)", "Error(networkError)"])
        #expect(ended.participants[1].weakSpots == ["grammar": 1, "vocabulary": 2])
        #expect(ended.participants[1].collaboration.helpGiven == 2)
    }

    @Test("The type read from the leading bytes (the hub's layout) decodes the same as a full pass (any key order)")
    func leadingTypeFastPath() throws {
        let hubLayout = #"{"type":"pong","serverTime":42,"ref":"p1"}"#
        let otherOrder = #"{"serverTime":42,"ref":"p1","type":"pong"}"#
        let spaced = #"{ "type" : "pong", "serverTime":42,"ref":"p1"}"#
        #expect(ServerMessageDecoder.leadingType(Data(hubLayout.utf8)) == "pong")
        #expect(ServerMessageDecoder.leadingType(Data(otherOrder.utf8)) == nil)
        #expect(ServerMessageDecoder.leadingType(Data(spaced.utf8)) == nil)
        #expect(ServerMessageDecoder.leadingType(Data(#"{"type":"po\u006eg","serverTime":1}"#.utf8)) == nil)
        #expect(ServerMessageDecoder.leadingType(Data(#"{"type":""}"#.utf8)) == nil)
        let decoded = try decoder.decode(hubLayout)
        #expect(decoded == (try decoder.decode(otherOrder)))
        #expect(decoded == (try decoder.decode(spaced)))
        // Starts like a message, is not JSON: the same failure as without the fast path.
        #expect(throws: ServerMessageDecoder.Failure.malformedJSON) { try decoder.decode(#"{"type":"pong","serverTime":4"#) }
    }

    @Test("Unknown types are .other; broken messages are precise failures")
    func unknownAndBroken() throws {
        #expect(try decoder.decode(#"{"type":"teleported","to":"mars"}"#) == .other(type: "teleported"))
        #expect(ServerMessage.other(type: "x").type == "x")
        func failure(_ text: String) -> ServerMessageDecoder.Failure? {
            do throws(ServerMessageDecoder.Failure) {
                _ = try decoder.decode(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("not json") == .malformedJSON)
        // An unknown type in the hub's layout is still checked to be JSON.
        #expect(failure(#"{"type":"future""#) == .malformedJSON)
        #expect(failure(#"{"type":"future"}garbage"#) == .malformedJSON)
        // So is a type the hub sends that has no case of its own (an account reply).
        #expect(failure(#"{"type":"historyUpdated","session":{"#) == .malformedJSON)
        #expect(try decoder.decode(#"{"type":"historyUpdated","session":{}}"#) == .other(type: "historyUpdated"))
        #expect(failure("[1]") == .malformedJSON)
        #expect(failure(#"{"seq":1}"#) == .missingType)
        #expect(failure(#"{"type":7}"#) == .missingType)
        #expect(failure(#"{"type":"line","sessionId":"s","seq":1}"#) == .invalidMessage(type: "line", detail: "missing field line"))
        #expect(failure(#"{"type":"pong","serverTime":"soon"}"#) == .invalidMessage(type: "pong", detail: "field serverTime has the wrong type"))
        #expect(failure(#"{"type":"participants","sessionId":"s","seq":1,"change":{"userId":"u","kind":"teleported"},"participants":[]}"#)
            == .invalidMessage(type: "participants", detail: "field change.kind has an invalid value"))
    }
}
