import Foundation

/// The part of `sessionhub-bot play --json`'s summary the integration tests check (the whole
/// shape is in `docs/BOT.md`). Decoding it also checks the types of these fields.
struct BotSummary: Decodable, Sendable {
    struct Player: Decodable, Sendable {
        var userId: String
        var roleName: String?
        var mode: String?
        var connections: Int
        var receivedEnded: Bool
        var linesSpoken: Int
        var recastsGiven: Int
        var recastsAccepted: Int
        var unanswered: Int
        var problems: [String]
        var xpEarned: Int?
    }

    struct Resume: Decodable, Sendable {
        var userId: String
        var lastSeq: Int
        var othersSeq: Int
        var mode: String?
        var replayed: Int
        var replayedSeqs: [Int]
        var complete: Bool
    }

    var ok: Bool
    var exitCode: Int32
    var mode: String
    var scenarioId: String?
    var goalLines: Int?
    var sessionId: String?
    var joinCode: String?
    var ended: Bool
    var cause: String?
    var goalReached: Bool?
    var linesSpoken: Int
    var recasts: Int
    var recastsAccepted: Int
    var resumes: [Resume]
    var players: [Player]
    var problems: [String]

    /// The summary printed on standard output.
    init(json: String) throws {
        self = try JSONDecoder().decode(BotSummary.self, from: Data(json.utf8))
    }
}
