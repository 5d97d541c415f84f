import Foundation
import HubDomain

/// The fast path of ``ServerMessageDecoder`` for the two broadcasts a client gets most, `line`
/// and `stats` (a `stats` follows nearly every line, and Foundation's decoder spends most of a
/// client's time on its nested figures): one pass over the bytes with ``JSONCursor``.
///
/// Nil for anything it does not read exactly as Foundation would — a missing or repeated field,
/// a value of another type, an unknown `mode`, anything ``JSONCursor`` leaves to Foundation —
/// and the decoder then takes Foundation's path, which decides, errors included. Unknown fields
/// are skipped, as Foundation does. `BroadcastFastPathTests` checks that both paths agree on
/// generated and mutated messages.
enum BroadcastFastPath {
    /// A `line` broadcast, or nil.
    static func line(_ data: Data) -> ServerMessage.LineBroadcast? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw)
            var sessionId: String?, seq: Int?, ref: String?, line: DialogLine?
            var seen = Fields()
            let read = cursor.object { cursor, key in
                switch key {
                case "sessionId": return seen.first(0) && assign(&sessionId, cursor.string())
                case "seq": return seen.first(1) && assign(&seq, cursor.integer())
                case "ref": return seen.first(2) && optionalString(&cursor, into: &ref)
                case "line": return seen.first(3) && assign(&line, dialogLine(&cursor))
                default: return cursor.skipValue()
                }
            }
            guard read, cursor.atEnd(), let sessionId, let seq, let line else { return nil }
            return ServerMessage.LineBroadcast(sessionId: sessionId, seq: seq, ref: ref, line: line)
        }
    }

    /// A `stats` broadcast, or nil.
    static func stats(_ data: Data) -> ServerMessage.StatsBroadcast? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw)
            var sessionId: String?, seq: Int?, participants: [ParticipantStats]?
            var seen = Fields()
            let read = cursor.object { cursor, key in
                switch key {
                case "sessionId": return seen.first(0) && assign(&sessionId, cursor.string())
                case "seq": return seen.first(1) && assign(&seq, cursor.integer())
                case "participants":
                    guard seen.first(2) else { return false }
                    var list: [ParticipantStats] = []
                    let ok = cursor.array { cursor in
                        guard let figures = participantStats(&cursor) else { return false }
                        list.append(figures)
                        return true
                    }
                    participants = list
                    return ok
                default: return cursor.skipValue()
                }
            }
            guard read, cursor.atEnd(), let sessionId, let seq, let participants else { return nil }
            return ServerMessage.StatsBroadcast(sessionId: sessionId, seq: seq, participants: participants)
        }
    }

    // MARK: Models

    private static func dialogLine(_ cursor: inout JSONCursor) -> DialogLine? {
        var id: String?, speakerId: String?, roleName: String?, textNative: String?, textTranslated: String?
        var timestamp: Int?, clientId: String?
        var seen = Fields()
        let read = cursor.object { cursor, key in
            switch key {
            case "id": return seen.first(0) && assign(&id, cursor.string())
            case "speakerId": return seen.first(1) && assign(&speakerId, cursor.string())
            case "roleName": return seen.first(2) && assign(&roleName, cursor.string())
            case "textNative": return seen.first(3) && assign(&textNative, cursor.string())
            case "textTranslated": return seen.first(4) && assign(&textTranslated, cursor.string())
            case "timestamp": return seen.first(5) && assign(&timestamp, cursor.integer())
            case "clientId": return seen.first(6) && optionalString(&cursor, into: &clientId)
            default: return cursor.skipValue()
            }
        }
        guard read, let id, let speakerId, let roleName, let textNative, let textTranslated, let timestamp else { return nil }
        return DialogLine(id: id, speakerId: speakerId, roleName: roleName, textNative: textNative,
                          textTranslated: textTranslated, timestamp: Int64(timestamp), clientId: clientId)
    }

    private static func participantStats(_ cursor: inout JSONCursor) -> ParticipantStats? {
        var userId: String?, stats: SessionStats?, collaboration: CollaborationStats?, weakSpots: [String: Int]?
        var seen = Fields()
        let read = cursor.object { cursor, key in
            switch key {
            case "userId": return seen.first(0) && assign(&userId, cursor.string())
            case "stats": return seen.first(1) && assign(&stats, sessionStats(&cursor))
            case "collaboration": return seen.first(2) && assign(&collaboration, collaborationStats(&cursor))
            case "weakSpots":
                guard seen.first(3) else { return false }
                var spots: [String: Int] = [:]
                let ok = cursor.object { cursor, type in
                    guard spots[type] == nil, let count = cursor.integer() else { return false }
                    spots[type] = count
                    return true
                }
                weakSpots = spots
                return ok
            default: return cursor.skipValue()
            }
        }
        guard read, let userId, let stats, let collaboration, let weakSpots else { return nil }
        return ParticipantStats(userId: userId, stats: stats, collaboration: collaboration, weakSpots: weakSpots)
    }

    private static func sessionStats(_ cursor: inout JSONCursor) -> SessionStats? {
        var sessionId: String?, startedAt: Int?, endedAt: Int?, mode: SessionMode?, scenarioId: String?
        var figures = [Int?](repeating: nil, count: 6)
        var breakdown: XPBreakdown?
        var seen = Fields()
        let read = cursor.object { cursor, key in
            switch key {
            case "sessionId": return seen.first(0) && assign(&sessionId, cursor.string())
            case "startedAt": return seen.first(1) && assign(&startedAt, cursor.integer())
            case "endedAt":
                guard seen.first(2) else { return false }
                if cursor.null() { return true }
                return assign(&endedAt, cursor.integer())
            case "mode": return seen.first(3) && assign(&mode, cursor.string().flatMap(SessionMode.init(rawValue:)))
            case "scenarioId": return seen.first(4) && assign(&scenarioId, cursor.string())
            case "xpBreakdown": return seen.first(5) && assign(&breakdown, xpBreakdown(&cursor))
            default:
                guard let slot = Self.sessionFigures.firstIndex(of: key) else { return cursor.skipValue() }
                return seen.first(6 + slot) && assign(&figures[slot], cursor.integer())
            }
        }
        guard read, let sessionId, let startedAt, let mode, let scenarioId, let breakdown,
              let lines = figures[0], let words = figures[1], let new = figures[2], let detected = figures[3],
              let corrected = figures[4], let xp = figures[5]
        else { return nil }
        return SessionStats(sessionId: sessionId, startedAt: Int64(startedAt), endedAt: endedAt.map(Int64.init), mode: mode,
                            scenarioId: scenarioId, linesSpoken: lines, wordsEncountered: words, newVocabulary: new,
                            errorsDetected: detected, errorsCorrected: corrected, xpEarned: xp, xpBreakdown: breakdown)
    }

    private static let sessionFigures = ["linesSpoken", "wordsEncountered", "newVocabulary", "errorsDetected", "errorsCorrected", "xpEarned"]

    private static func xpBreakdown(_ cursor: inout JSONCursor) -> XPBreakdown? {
        guard let parts = integers(&cursor, ["dialogCompletion", "vocabularyBonus", "accuracyBonus", "collaborationBonus", "streakBonus"]) else {
            return nil
        }
        return XPBreakdown(dialogCompletion: parts[0], vocabularyBonus: parts[1], accuracyBonus: parts[2],
                           collaborationBonus: parts[3], streakBonus: parts[4])
    }

    private static func collaborationStats(_ cursor: inout JSONCursor) -> CollaborationStats? {
        guard let parts = integers(&cursor, ["successfulRepairs", "helpGiven", "teamWins"]) else { return nil }
        return CollaborationStats(successfulRepairs: parts[0], helpGiven: parts[1], teamWins: parts[2])
    }

    /// An object whose fields `names` are all integers (others skipped), in the order of `names`.
    private static func integers(_ cursor: inout JSONCursor, _ names: [String]) -> [Int]? {
        var values = [Int?](repeating: nil, count: names.count)
        let read = cursor.object { cursor, key in
            guard let slot = names.firstIndex(of: key) else { return cursor.skipValue() }
            guard values[slot] == nil, let value = cursor.integer() else { return false }
            values[slot] = value
            return true
        }
        guard read else { return nil }
        let all = values.compactMap { $0 }
        return all.count == names.count ? all : nil
    }

    // MARK: Helpers

    /// Which known fields were read: a repeated one is left to Foundation.
    private struct Fields {
        private var bits: UInt32 = 0

        /// True the first time `field` is met.
        mutating func first(_ field: Int) -> Bool {
            let bit: UInt32 = 1 << UInt32(field)
            guard bits & bit == 0 else { return false }
            bits |= bit
            return true
        }
    }

    private static func assign<T>(_ target: inout T?, _ value: T?) -> Bool {
        guard let value else { return false }
        target = value
        return true
    }

    /// A string or `null` (an optional field).
    private static func optionalString(_ cursor: inout JSONCursor, into target: inout String?) -> Bool {
        if cursor.null() { return true }
        return assign(&target, cursor.string())
    }
}
