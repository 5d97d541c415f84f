import Foundation
import HubDomain
import HubProtocol
import SessionHubClient
import Testing

@Suite("Client message encoding")
struct ClientMessageEncoderTests {
    let decoder = ClientMessageDecoder()

    /// One of every client request of docs/PROTOCOL.md section 6, optional fields set and unset.
    static let requests: [ClientRequest] = [
        .hello(protocolVersion: 1),
        .hello(protocolVersion: nil),
        .auth(token: "a.b.c"),
        .scenarios,
        .startSolo(scenarioId: "ordering-coffee"),
        .host(scenarioId: "hotel-check-in", maxPlayers: 3),
        .host(scenarioId: "hotel-check-in", maxPlayers: nil),
        .join(code: "SVT2CH"),
        .resume(resumeToken: "66b2d9c7a27fdf23bb96736e80b8f84a", lastSeq: 11),
        .say(textNative: "Bonjour, je ai une réservation.", textTranslated: "Hello, I have a booking."),
        .say(textNative: "Hola", textTranslated: ""),
        .recast(lineId: "l2", correctedText: "Bonjour, j'ai une réservation.", explanation: "je + ai → j'ai",
                issueTypes: [.grammar, .sentenceStructure]),
        .recast(lineId: "l2", correctedText: "x", explanation: nil, issueTypes: RecastIssueType.allCases),
        .acceptRecast(recastId: "r1"),
        .leave,
        .end,
        .ping,
        .profile,
        .updateProfile(profile: Data(#"{"dailyGoalMinutes":40}"#.utf8)),
        .history(limit: 5, before: 1_795_000_000_000),
        .history(limit: nil, before: nil),
        .historySession(sessionId: "8849dad05ac27c207dc9596a7485390e"),
    ]

    @Test("Every request round-trips through the hub's decoder, with and without an id")
    func roundTrip() throws {
        for request in Self.requests {
            for id in [nil, "7", "s-1"] as [String?] {
                let text = ClientMessageEncoder.encode(request, id: id)
                let decoded = try decoder.decode(text).get()
                #expect(decoded == ClientMessage(id: id, request: request), "\(text)")
            }
        }
        let message = ClientMessage(id: "e", request: .end)
        #expect(ClientMessageEncoder.encode(message) == ClientMessageEncoder.encode(.end, id: "e"))
    }

    @Test("Exact wire text: type first, table order, id last, nil optionals left out")
    func wireText() {
        #expect(ClientMessageEncoder.encode(.say(textNative: "Hola", textTranslated: "Hi"), id: "s1")
            == #"{"type":"say","textNative":"Hola","textTranslated":"Hi","id":"s1"}"#)
        #expect(ClientMessageEncoder.encode(.host(scenarioId: "x", maxPlayers: nil))
            == #"{"type":"host","scenarioId":"x"}"#)
        #expect(ClientMessageEncoder.encode(.resume(resumeToken: "t", lastSeq: 4), id: "r")
            == #"{"type":"resume","resumeToken":"t","lastSeq":4,"id":"r"}"#)
        #expect(ClientMessageEncoder.encode(.recast(lineId: "l1", correctedText: "c", explanation: nil, issueTypes: [.vocabulary]))
            == #"{"type":"recast","lineId":"l1","correctedText":"c","issueTypes":["vocabulary"]}"#)
        #expect(ClientMessageEncoder.encode(.hello(protocolVersion: nil)) == #"{"type":"hello"}"#)
    }

    @Test("Quotes, backslashes, control characters and non-ASCII text survive")
    func escaping() throws {
        let text = "Il a dit \"ça\" \\ puis\n\tpartit \u{01} 🎉 ¿qué?"
        let encoded = ClientMessageEncoder.encode(.say(textNative: text, textTranslated: text), id: "q\"1")
        let decoded = try decoder.decode(encoded).get()
        #expect(decoded == ClientMessage(id: "q\"1", request: .say(textNative: text, textTranslated: text)))
    }
}
