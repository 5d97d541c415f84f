import Foundation
import HubDomain
@testable import HubProtocol
import Testing

/// The `line` and `stats` fast path (``BroadcastFastPath``, ``JSONCursor``) against Foundation's
/// decoder: on the hub's own messages it answers, and answers the same; on reordered, padded and
/// mutated messages it either answers what Foundation answers or leaves the message to
/// Foundation (nil) — never a different value, never a value where Foundation fails.
@Suite("Broadcast fast path")
struct BroadcastFastPathTests {
    typealias Generator = PlainEnvelopeScannerTests.Generator

    static let texts = ["Un café, por favor.", "", "quote \" backslash \\ slash /", "tab\tnew\nline", "\u{1}\u{1F}ctl",
                        "日本語のテキスト", "emoji 😀 and é", String(repeating: "long ", count: 40), "\u{2028}\u{FEFF}"]

    static func text(_ g: inout Generator) -> String { texts[Int.random(in: 0..<texts.count, using: &g)] }

    static func line(_ g: inout Generator) -> DialogLine {
        DialogLine(id: "l\(Int.random(in: 0...999, using: &g))", speakerId: text(&g), roleName: text(&g), textNative: text(&g),
                   textTranslated: text(&g), timestamp: Int64.random(in: 0...2_000_000_000_000, using: &g),
                   clientId: Bool.random(using: &g) ? text(&g) : nil)
    }

    static func figures(_ g: inout Generator) -> ParticipantStats {
        let breakdown = XPBreakdown(dialogCompletion: Int.random(in: 0...500, using: &g), vocabularyBonus: Int.random(in: 0...50, using: &g),
                                    accuracyBonus: Int.random(in: 0...30, using: &g), collaborationBonus: Int.random(in: 0...99, using: &g),
                                    streakBonus: Int.random(in: 0...40, using: &g))
        let stats = SessionStats(sessionId: "s", startedAt: Int64.random(in: 0...1_000_000, using: &g),
                                 endedAt: Bool.random(using: &g) ? Int64.random(in: 0...9_000_000, using: &g) : nil,
                                 mode: [SessionMode.solo, .host, .client][Int.random(in: 0..<3, using: &g)], scenarioId: text(&g),
                                 linesSpoken: Int.random(in: 0...40, using: &g), wordsEncountered: Int.random(in: 0...400, using: &g),
                                 newVocabulary: Int.random(in: 0...40, using: &g), errorsDetected: Int.random(in: 0...9, using: &g),
                                 errorsCorrected: Int.random(in: 0...9, using: &g), xpEarned: breakdown.total, xpBreakdown: breakdown)
        var spots: [String: Int] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &g) { spots[text(&g)] = Int.random(in: 1...5, using: &g) }
        return ParticipantStats(userId: text(&g), stats: stats, collaboration: CollaborationStats(
            successfulRepairs: Int.random(in: 0...5, using: &g), helpGiven: Int.random(in: 0...5, using: &g),
            teamWins: Int.random(in: 0...1, using: &g)), weakSpots: spots)
    }

    /// The hub's encoding of a random line or stats broadcast.
    static func hubMessage(_ g: inout Generator) -> [UInt8] {
        let event: SessionEvent = Bool.random(using: &g)
            ? .line(line(&g), ref: Bool.random(using: &g) ? text(&g) : nil)
            : .stats((0..<Int.random(in: 0...6, using: &g)).map { _ in figures(&g) })
        return ServerMessageEncoder.broadcastUTF8(SessionEnvelope(sessionId: "0123456789abcdef0123456789abcdef",
                                                                  seq: Int.random(in: 1...100_000, using: &g), event: event))
    }

    enum Outcome: Equatable {
        case line(ServerMessage.LineBroadcast)
        case stats(ServerMessage.StatsBroadcast)
        case none
    }

    static func fast(_ bytes: [UInt8]) -> (line: Outcome, stats: Outcome) {
        let data = Data(bytes)
        return (BroadcastFastPath.line(data).map(Outcome.line) ?? .none, BroadcastFastPath.stats(data).map(Outcome.stats) ?? .none)
    }

    static func foundation(_ bytes: [UInt8]) -> (line: Outcome, stats: Outcome) {
        let data = Data(bytes), decoder = JSONDecoder()
        return ((try? decoder.decode(ServerMessage.LineBroadcast.self, from: data)).map(Outcome.line) ?? .none,
                (try? decoder.decode(ServerMessage.StatsBroadcast.self, from: data)).map(Outcome.stats) ?? .none)
    }

    /// The fast answer is Foundation's, or none.
    static func agree(_ bytes: [UInt8]) -> Bool {
        let (fast, slow) = (fast(bytes), foundation(bytes))
        return (fast.line == .none || fast.line == slow.line) && (fast.stats == .none || fast.stats == slow.stats)
    }

    @Test("The hub's own line and stats broadcasts take the fast path and decode as Foundation decodes them")
    func hubMessagesTakeTheFastPath() throws {
        var g = Generator(seed: 7)
        for _ in 0..<2_000 {
            let bytes = Self.hubMessage(&g)
            let (fast, slow) = (Self.fast(bytes), Self.foundation(bytes))
            let isLine = bytes.starts(with: Array(#"{"type":"line""#.utf8))
            #expect((isLine ? fast.line : fast.stats) != .none, "fast path refused: \(String(decoding: bytes, as: UTF8.self))")
            #expect(isLine ? fast.line == slow.line : fast.stats == slow.stats)
            // And through the decoder, as a client sees it.
            let message = try ServerMessageDecoder().decode(Data(bytes))
            switch (message, isLine ? slow.line : slow.stats) {
            case (.line(let a), .line(let b)): #expect(a == b)
            case (.stats(let a), .stats(let b)): #expect(a == b)
            default: Issue.record("decoded as \(message.type)")
            }
        }
    }

    @Test("Other layouts: keys reordered, unknown fields of every kind, nulls, odd numbers and strings")
    func otherLayoutsAgree() throws {
        var g = Generator(seed: 11)
        let extras = [#""x":1"#, #""x":null"#, #""x":[1,{"a":[true,false]}]"#, #""x":{"y":"z"}"#, #""x":1.5"#, #""x":"\u00e9""#,
                      #""ref":null"#, #""clientId":null"#, #""endedAt":null"#, #""seq":1.0"#, #""seq":01"#, #""seq":-0"#,
                      #""seq":9223372036854775808"#, #""mode":"spectator""#, #""sessionId":"dup""#, #""weakSpots":{"a":1,"a":2}"#,
                      #""timestamp":1e3"#, #""textNative":"lone \ud800""#, #""textNative":"bad \x""#, #""id":7"#]
        for _ in 0..<3_000 {
            var text = String(decoding: Self.hubMessage(&g), as: UTF8.self)
            // Insert up to three extra members after a random opening brace.
            for _ in 0..<Int.random(in: 0...3, using: &g) {
                let braces = text.indices.filter { text[$0] == "{" }
                guard let at = braces.randomElement(using: &g) else { break }
                text.insert(contentsOf: Self.pick(extras, &g) + ",", at: text.index(after: at))
            }
            if Bool.random(using: &g) { text = " \n" + text + "\t " }
            #expect(Self.agree(Array(text.utf8)), "\(text)")
        }
    }

    @Test("Mutated messages: the fast path never answers other than Foundation")
    func mutationsAgree() {
        var g = Generator(seed: 13)
        let pool: [UInt8] = Array(#"{}[]:,"\0123456789-.eEnulltrufase abc\u"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xED, 0xA0]
        for _ in 0..<5_000 {
            var bytes = Self.hubMessage(&g)
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &g)
                switch Int.random(in: 0..<3, using: &g) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(pool[Int.random(in: 0..<pool.count, using: &g)], at: at)
                default: bytes[at] = pool[Int.random(in: 0..<pool.count, using: &g)]
                }
            }
            #expect(Self.agree(bytes), "\(bytes)")
        }
    }

    static func pick(_ list: [String], _ g: inout Generator) -> String { list[Int.random(in: 0..<list.count, using: &g)] }
}
