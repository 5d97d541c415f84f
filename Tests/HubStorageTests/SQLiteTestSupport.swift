import Foundation
import HubDomain
@testable import HubStorage

/// A fresh directory under the system's temporary directory, for one test's database files.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("hubstorage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A file path inside (its parent directories need not exist).
    func file(_ name: String = "sessionhub.sqlite") -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Epoch-ms days used by the tests (UTC midnight).
enum Day {
    static let ms: Int64 = 86_400_000
    /// Monday 2026-11-16.
    static let mon16: Int64 = 1_794_787_200_000
    /// Sunday 2026-11-22.
    static let sun22: Int64 = 1_795_305_600_000
    /// Monday 2026-11-23.
    static let mon23: Int64 = 1_795_392_000_000
    /// Tuesday 2026-11-24.
    static let tue24: Int64 = 1_795_478_400_000
    /// Friday 2026-11-27.
    static let fri27: Int64 = 1_795_737_600_000
    static let hour: Int64 = 3_600_000
}

enum Fixture {
    /// A session's journal header: a journal reads back the entries of open sessions only.
    static func header(_ sessionId: String) -> SessionHeader {
        SessionHeader(sessionId: sessionId, scenarioId: "ordering-coffee", joinCode: nil, maxPlayers: 4, startedAt: 1_000)
    }

    static func line(_ index: Int, speaker: String, at time: Int64) -> DialogLine {
        DialogLine(id: "l\(index)", speakerId: speaker, roleName: "Barista", textNative: "Un café, por favor \(index)",
                   textTranslated: "A coffee, please \(index)", timestamp: time)
    }

    static func participant(_ userId: String, sessionId: String, xp: Int, mode: SessionMode = .solo,
                            startedAt: Int64, endedAt: Int64, linesSpoken: Int = 3,
                            collaboration: CollaborationStats = CollaborationStats(),
                            newWords: Set<String> = ["café"]) -> EndedParticipant {
        let breakdown = XPBreakdown(dialogCompletion: xp, vocabularyBonus: 0, accuracyBonus: 0, collaborationBonus: 0,
                                    streakBonus: 0)
        let stats = SessionStats(sessionId: sessionId, startedAt: startedAt, endedAt: endedAt, mode: mode,
                                 scenarioId: "ordering-coffee", linesSpoken: linesSpoken, wordsEncountered: 8,
                                 newVocabulary: newWords.count, errorsDetected: 1, errorsCorrected: 1, xpEarned: xp,
                                 xpBreakdown: breakdown)
        return EndedParticipant(userId: userId, displayName: "Name of \(userId)", roleName: "Customer",
                                figures: ParticipantStats(userId: userId, stats: stats, collaboration: collaboration,
                                                          weakSpots: ["grammar": 1]),
                                newWords: newWords)
    }

    /// A session that ended at `endedAt` after `durationSeconds`, one participant per (user, xp).
    static func session(_ sessionId: String, endedAt: Int64, durationSeconds: Int = 300, multiplayer: Bool = false,
                        users: [(String, Int)], lineCount: Int = 4, goalReached: Bool = true,
                        collaboration: CollaborationStats = CollaborationStats(),
                        targetLanguage: String = "es") -> EndedSession {
        let startedAt = endedAt - Int64(durationSeconds) * 1000
        let speakers = users.map(\.0)
        let lines = (0..<lineCount).map { line($0 + 1, speaker: speakers[$0 % max(1, speakers.count)],
                                               at: startedAt + Int64($0) * 1000) }
        let recasts = lineCount > 0 ? [Recast(id: "r1", lineId: "l1", authorId: speakers.last ?? "tutor",
                                              speakerId: speakers.first ?? "u", correctedText: "Un café, por favor.",
                                              explanation: "punctuation", issueTypes: [.grammar, .naturalness],
                                              timestamp: startedAt + 1500, accepted: true)] : []
        let mode: SessionMode = multiplayer ? .host : .solo
        let participants = users.enumerated().map { index, user in
            participant(user.0, sessionId: sessionId, xp: user.1, mode: index == 0 ? mode : .client,
                        startedAt: startedAt, endedAt: endedAt, collaboration: collaboration)
        }
        return EndedSession(sessionId: sessionId, scenarioId: "ordering-coffee", scenarioTitle: "Ordering Coffee",
                            targetLanguage: targetLanguage, multiplayer: multiplayer, startedAt: startedAt,
                            endedAt: endedAt, cause: .hostEnded, goalReached: goalReached, lines: lines,
                            recasts: recasts, participants: participants)
    }
}

extension SQLiteStore {
    /// Rows in a table, for checking that nothing was written.
    func count(_ table: String) throws -> Int {
        try database.withConnection { db in
            try db.queryFirst("SELECT COUNT(*) FROM \(table)") { $0.int(0) } ?? 0
        }
    }
}
