// Deterministic test data for the storage benchmarks: sessions, journal entries, temp directories.
import Foundation
import HubDomain
import HubStorage

/// The fixtures' seeded generator (``HubDomain/SplitMix64``), so they never depend on the
/// system RNG.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// A session id as the hub makes them: 32 hex digits.
    mutating func sessionId() -> String {
        String(format: "%016llx%016llx", next(), next())
    }
}

/// Where the benchmarks keep their files.
enum BenchDirectory {
    /// Per process, removed at exit of each benchmark (the databases written while measuring).
    static func fresh(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sessionhub-storage-bench-\(getpid())-\(name)").path
        try? FileManager.default.removeItem(atPath: path)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Kept between runs: the prepared 1,000,000-session database. `STORAGE_BENCH_CACHE_DIR`
    /// overrides it.
    static var cache: String {
        let path = ProcessInfo.processInfo.environment["STORAGE_BENCH_CACHE_DIR"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-storage-bench-cache").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Epoch-ms times (UTC).
enum Clock {
    static let dayMs: Int64 = 86_400_000
    /// Monday 2026-11-23 00:00 UTC.
    static let mon23: Int64 = 1_795_392_000_000
}

enum SessionFixture {
    // Lines of an "Ordering Coffee"-style dialog: the practised language and its translation.
    private static let native = [
        "Buenos días, ¿qué le pongo?", "Quisiera un café con leche, por favor.",
        "¿Lo quiere para tomar aquí o para llevar?", "Para llevar, gracias. ¿Tienen leche de avena?",
        "Sí, claro. ¿Algo más? Tenemos cruasanes recién hechos.", "Pues sí, un cruasán de chocolate también.",
        "Son cuatro euros con cincuenta.", "¿Puedo pagar con tarjeta?", "Por supuesto, acerque la tarjeta aquí.",
        "Perdone, ¿dónde está el baño?", "Al fondo a la derecha, junto a la escalera.",
        "Mi amiga quiere un té verde sin azúcar.", "¿Grande o pequeño? El grande cuesta un euro más.",
        "Pequeño está bien. ¿Me da una servilleta?", "Aquí tiene. ¡Que tengan un buen día!",
    ]
    private static let translated = [
        "Good morning, what can I get you?", "I'd like a coffee with milk, please.",
        "Is it for here or to go?", "To go, thanks. Do you have oat milk?",
        "Yes, of course. Anything else? We have freshly baked croissants.", "Well yes, a chocolate croissant too.",
        "That's four euros fifty.", "Can I pay by card?", "Of course, hold the card here.",
        "Excuse me, where is the bathroom?", "At the back on the right, next to the stairs.",
        "My friend wants a green tea without sugar.", "Large or small? The large one is a euro more.",
        "Small is fine. Could I have a napkin?", "Here you are. Have a nice day!",
    ]
    private static let roles = ["Customer", "Barista", "Friend", "Manager"]
    private static let words = ["café", "leche", "avena", "cruasán", "tarjeta", "servilleta", "escalera", "azúcar",
                                "llevar", "baño", "fondo", "derecha", "pequeño", "grande", "euros"]

    /// A realistic ended session: `participants` users (`userIds`, the first hosts), `lineCount`
    /// lines spoken in turn, `recastCount` recasts (the first ones accepted), 12 minutes long.
    static func ended(sessionId: String, userIds: [String], lineCount: Int, recastCount: Int,
                      endedAt: Int64) -> EndedSession {
        let durationMs: Int64 = 12 * 60_000
        let startedAt = endedAt - durationMs
        let step = durationMs / Int64(max(1, lineCount + 1))
        var lines: [DialogLine] = []
        lines.reserveCapacity(lineCount)
        for index in 0..<lineCount {
            let speaker = index % userIds.count
            lines.append(DialogLine(id: "l\(index + 1)", speakerId: userIds[speaker], roleName: roles[speaker % roles.count],
                                    textNative: native[index % native.count],
                                    textTranslated: translated[index % translated.count],
                                    timestamp: startedAt + Int64(index + 1) * step))
        }
        var recasts: [Recast] = []
        for index in 0..<recastCount {
            let lineIndex = (index * 6 + 1) % max(1, lineCount)
            let line = lines[lineIndex]
            let author = userIds[(lineIndex + 1) % userIds.count]
            recasts.append(Recast(id: "r\(index + 1)", lineId: line.id, authorId: author, speakerId: line.speakerId,
                                  correctedText: line.textNative.replacingOccurrences(of: ",", with: ";"),
                                  explanation: index % 2 == 0 ? "Más natural con punto y coma aquí." : nil,
                                  issueTypes: index % 3 == 0 ? [.grammar, .naturalness] : [.vocabulary],
                                  timestamp: line.timestamp + 4_000, accepted: index % 5 != 4))
        }
        let participants = userIds.enumerated().map { index, userId in
            let spoken = lines.filter { $0.speakerId == userId }.count
            let breakdown = XPBreakdown(dialogCompletion: 10 * spoken, vocabularyBonus: 15, accuracyBonus: 20,
                                        collaborationBonus: 10, streakBonus: 5)
            let xp = 10 * spoken + 50
            let stats = SessionStats(sessionId: sessionId, startedAt: startedAt, endedAt: endedAt,
                                     mode: userIds.count == 1 ? .solo : (index == 0 ? .host : .client),
                                     scenarioId: "ordering-coffee", linesSpoken: spoken, wordsEncountered: 60,
                                     newVocabulary: 6, errorsDetected: 2, errorsCorrected: 1, xpEarned: xp,
                                     xpBreakdown: breakdown)
            let collaboration = CollaborationStats(successfulRepairs: 1, helpGiven: 1, teamWins: 1)
            let newWords = Set((0..<6).map { words[(index * 4 + $0) % words.count] })
            return EndedParticipant(userId: userId, displayName: "Player \(userId)", roleName: roles[index % roles.count],
                                    figures: ParticipantStats(userId: userId, stats: stats, collaboration: collaboration,
                                                              weakSpots: ["grammar": 1, "vocabulary": 1]),
                                    newWords: newWords)
        }
        return EndedSession(sessionId: sessionId, scenarioId: "ordering-coffee", scenarioTitle: "Ordering Coffee",
                            targetLanguage: "es", multiplayer: userIds.count > 1, startedAt: startedAt,
                            endedAt: endedAt, cause: .hostEnded, goalReached: true, lines: lines, recasts: recasts,
                            participants: participants)
    }

    /// The size of one participant's history entry (the JSON `body` the store writes).
    static func historyBodyBytes(_ session: EndedSession) -> Int {
        let participant = session.participants[0]
        let entry = HistorySession(sessionId: session.sessionId, scenarioTitle: session.scenarioTitle,
                                   timestamp: session.endedAt, targetLanguage: session.targetLanguage,
                                   durationSeconds: session.durationSeconds, dialogLines: session.lines,
                                   scenarioId: session.scenarioId, recasts: session.recasts,
                                   stats: participant.figures.stats, collaboration: participant.figures.collaboration)
        return (try? JSONEncoder().encode(entry).count) ?? -1
    }

    /// A line event as the session journals it.
    static func lineEntry(sessionId: String, seq: Int, speaker: String, at time: Int64) -> JournalEntry {
        let line = DialogLine(id: "l\(seq)", speakerId: speaker, roleName: roles[seq % roles.count],
                              textNative: native[seq % native.count], textTranslated: translated[seq % translated.count],
                              timestamp: time)
        return JournalEntry(sessionId: sessionId, seq: seq, timestamp: time, event: .line(line, ref: "req-\(seq)"))
    }

    /// The journal a live session leaves behind for `session` (as `LiveSession` writes it):
    /// one presence change per participant, every line, every recast and each acceptance, as
    /// `(seq, timestamp, kind, body)` rows. The bodies are JSON of the same size order as the
    /// journal's own encoding; the history write only deletes them.
    static func journalRows(for session: EndedSession) -> [(seq: Int, timestamp: Int64, kind: String, body: Data)] {
        let encoder = JSONEncoder()
        var rows: [(Int, Int64, String, Data)] = []
        var seq = 0
        for participant in session.participants {
            seq += 1
            let info = ParticipantInfo(userId: participant.userId, displayName: participant.displayName,
                                       roleName: participant.roleName, mode: participant.figures.stats.mode,
                                       isHost: seq == 1, connected: true)
            rows.append((seq, session.startedAt + Int64(seq), "participants", try! encoder.encode([info])))
        }
        for line in session.lines {
            seq += 1
            rows.append((seq, line.timestamp, "line", try! encoder.encode(line)))
        }
        for recast in session.recasts {
            seq += 1
            rows.append((seq, recast.timestamp, "recast", try! encoder.encode(recast)))
            if recast.accepted {
                seq += 1
                rows.append((seq, recast.timestamp + 2_000, "recastAccepted",
                             Data(#"{"recastId":"\#(recast.id)","lineId":"\#(recast.lineId)","userId":"\#(recast.speakerId)"}"#.utf8)))
            }
        }
        return rows
    }

    /// Writes `session`'s journal (header and rows) the way a live session would have left it.
    static func writeJournal(for session: EndedSession, into database: SQLiteDatabase) throws {
        let header = SessionHeader(sessionId: session.sessionId, scenarioId: session.scenarioId, joinCode: "QX7K2M",
                                   maxPlayers: 4, startedAt: session.startedAt)
        let headerBody = try JSONEncoder().encode(header)
        let rows = journalRows(for: session)
        try database.transaction { db in
            try db.run("INSERT OR REPLACE INTO journal_sessions (session_id, started_at, body) VALUES (?, ?, ?)",
                       [.text(session.sessionId), .integer(session.startedAt), .blob(headerBody)])
            for row in rows {
                try db.run("INSERT OR REPLACE INTO journal (session_id, seq, timestamp, kind, body) VALUES (?, ?, ?, ?, ?)",
                           [.text(session.sessionId), .int(row.seq), .integer(row.timestamp), .text(row.kind),
                            .blob(row.body)])
            }
        }
    }
}

/// Monotonic nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// CPU time of the whole process (all threads) so far, in nanoseconds.
func processCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}
