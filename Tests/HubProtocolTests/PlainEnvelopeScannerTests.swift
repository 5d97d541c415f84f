import Foundation
import HubDomain
@testable import HubProtocol
import Testing

/// The decoder's fast path (``PlainEnvelopeScanner``) against Foundation's: on generated and
/// mutated messages the two answer the same, result for result, error for error; and the usual
/// messages do take the fast path.
@Suite("Plain envelope scanner")
struct PlainEnvelopeScannerTests {
    typealias Generator = SplitMix64

    static let stringFields = ["type", "token", "scenarioId", "code", "resumeToken", "textNative", "textTranslated", "clientId",
                               "lineId", "correctedText", "explanation", "recastId", "sessionId"]
    static let intFields = ["protocolVersion", "maxPlayers", "lastSeq", "limit", "before"]
    static let types = ["hello", "auth", "scenarios", "startSolo", "host", "join", "resume", "say", "recast", "acceptRecast",
                        "leave", "end", "ping", "profile", "updateProfile", "history", "historySession", "dance", ""]
    static let strings = [#""""#, #""abc""#, #""Un café, por favor.""#, #""tab\there""#, #""quote \" and \\ slash \/""#,
                          #""\u00e9\u4e2d""#, #""\ud83d\ude00 emoji""#, #""lone \ud800""#, #""bad \x escape""#, #""\u12""#,
                          "\"raw\ncontrol\"", #""ÄÖÜ 日本""#, String(repeating: "x", count: 70).debugDescription,
                          #""grammar""#, #""naturalness""#]
    static let numbers = ["0", "1", "-1", "42", "-0", "01", "1.0", "1e3", "2.5", "9223372036854775807", "9223372036854775808",
                          "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"]
    static let others = ["null", "true", "false", "[]", #"["grammar"]"#, #"["grammar","vocabulary"]"#, #"["nope"]"#,
                         "[1]", "{}", #"{"a":1}"#, #"["a",]"#]

    func value(_ g: inout Generator, for field: String) -> String {
        let roll = Int.random(in: 0..<10, using: &g)
        if field == "type", roll < 7 { return "\"\(Self.types.randomElement(using: &g)!)\"" }
        if field == "issueTypes", roll < 6 { return Self.others[Int.random(in: 4..<7, using: &g)] }
        if Self.intFields.contains(field), roll < 6 { return Self.numbers.randomElement(using: &g)! }
        if Self.stringFields.contains(field) || field == "id", roll < 6 { return Self.strings.randomElement(using: &g)! }
        let pools = [Self.strings, Self.numbers, Self.others]
        return pools.randomElement(using: &g)!.randomElement(using: &g)!
    }

    func message(_ g: inout Generator) -> String {
        var keys = (Self.stringFields + Self.intFields + ["id", "issueTypes", "profile", "extra", "x-custom", ""]).shuffled(using: &g)
        keys = Array(keys.prefix(Int.random(in: 0...6, using: &g)))
        if Bool.random(using: &g) { keys.insert("type", at: 0) }
        if Int.random(in: 0..<8, using: &g) == 0, let first = keys.first { keys.append(first) }   // a repeated key
        let space = [" ", "", "\n", "\t", "  "]
        let members = keys.map { key in
            "\(space.randomElement(using: &g)!)\"\(key)\"\(space.randomElement(using: &g)!):\(space.randomElement(using: &g)!)\(value(&g, for: key))"
        }
        return "\(space.randomElement(using: &g)!){\(members.joined(separator: ","))}\(space.randomElement(using: &g)!)"
    }

    func mutate(_ text: String, _ g: inout Generator) -> [UInt8] {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return bytes }
        switch Int.random(in: 0..<4, using: &g) {
        case 0: bytes.removeLast(Int.random(in: 1...bytes.count, using: &g))
        case 1: bytes[Int.random(in: 0..<bytes.count, using: &g)] = UInt8.random(in: 0...255, using: &g)
        case 2: bytes.insert(Array(#"{}[]",:\ 0-.e"#.utf8).randomElement(using: &g)!, at: Int.random(in: 0...bytes.count, using: &g))
        default: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &g))
        }
        return bytes
    }

    @Test("Fast path and Foundation path agree on 30,000 generated and mutated messages")
    func bothPathsAgree() {
        let decoder = ClientMessageDecoder()
        var g = Generator(seed: 2026_11_25)
        var fast = 0
        var disagreements: [String] = []
        for round in 0..<30_000 {
            let text = message(&g)
            let bytes = round % 3 == 2 ? mutate(text, &g) : Array(text.utf8)
            let data = Data(bytes)
            if PlainEnvelopeScanner.scan(data) != nil { fast += 1 }
            let a = decoder.decode(data), b = decoder.decodeWithFoundation(data)
            if a != b, disagreements.count < 5 {
                disagreements.append("\(String(decoding: bytes, as: UTF8.self)): fast \(a) / Foundation \(b)")
            }
            // The server decodes in place from the middle of a larger buffer: only the message's bytes count.
            let padded = Array(#"{"type":"ping""#.utf8) + bytes + Array(#","x":[}}"#.utf8)
            let inPlace = padded.withUnsafeBytes { raw in
                decoder.decode(bytes: UnsafeRawBufferPointer(rebasing: raw[14..<(14 + bytes.count)]))
            }
            if inPlace != a, disagreements.count < 5 {
                disagreements.append("\(String(decoding: bytes, as: UTF8.self)): in place \(inPlace) / Data \(a)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
        #expect(fast > 3_000, "the generator reaches the fast path (\(fast) times)")
    }

    @Test("The usual messages take the fast path")
    func usualMessagesAreScanned() {
        let usual = [
            #"{"type":"say","id":"s1","textNative":"Un café, por favor.","textTranslated":"A coffee, please.","clientId":"c-1"}"#,
            #"{"type":"recast","id":7,"lineId":"l3","correctedText":"Je voudrais un café.","issueTypes":["grammar"],"explanation":"conditionnel"}"#,
            #"{"type":"acceptRecast","id":"a","recastId":"r1"}"#,
            #"{"type":"join","id":"j","code":"K7QX4M"}"#,
            #"{"type":"resume","resumeToken":"t.sig","lastSeq":12}"#,
            #"{ "type" : "auth", "token" : "a.b.c" }"#,
        ]
        for text in usual {
            let data = Data(text.utf8)
            #expect(PlainEnvelopeScanner.scan(data) != nil, "\(text)")
            #expect(ClientMessageDecoder().decode(data) == ClientMessageDecoder().decodeWithFoundation(data))
        }
        let say = ClientMessageDecoder().decode(Data(usual[0].utf8))
        #expect(say == .success(ClientMessage(id: "s1", request: .say(textNative: "Un café, por favor.",
                                                                      textTranslated: "A coffee, please.", clientId: "c-1"))))
    }
}
