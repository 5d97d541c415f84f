import HubDomain
import HubProtocol
@testable import SessionHubClient
import Testing

/// Matching the hub's messages to the client's requests (docs/PROTOCOL.md, section 5).
@Suite("Request book")
struct RequestBookTests {
    static let sessionId = "8849dad05ac27c207dc9596a7485390e"

    static func line(speaker: String, ref: String) throws -> ServerMessage {
        let line = DialogLine(id: "l1", speakerId: speaker, roleName: "Guest", textNative: "Hola", textTranslated: "", timestamp: 1)
        return try ServerMessageDecoder().decode(ServerMessageEncoder.broadcast(
            SessionEnvelope(sessionId: sessionId, seq: 2, event: .line(line, ref: ref))))
    }

    @Test("A broadcast with my ref answers my request only when it is my own")
    func ownBroadcastsOnly() throws {
        var book = RequestBook<Int>()
        book.add(id: "x-1", answer: .line, waiter: 1)
        // Another member happened to use the same id: their line is not my answer.
        #expect(book.answer(try Self.line(speaker: "ben", ref: "x-1"), userId: "ana") == nil)
        #expect(book.count == 1)
        let mine = try #require(book.answer(try Self.line(speaker: "ana", ref: "x-1"), userId: "ana"))
        #expect(mine.0 == 1)
        #expect(book.count == 0)
    }

    @Test("A reply answers by ref and kind; an error answers any request with its ref, as a refusal")
    func repliesAndErrors() throws {
        var book = RequestBook<Int>()
        book.add(id: "x-1", answer: .pong, waiter: 1)
        book.add(id: "x-2", answer: .joined, waiter: 2)
        let decoder = ServerMessageDecoder()
        // A pong under another request's id is not that request's answer.
        #expect(book.answer(try decoder.decode(#"{"type":"pong","ref":"x-2","serverTime":5}"#), userId: "ana") == nil)
        let refused = try #require(book.answer(try decoder.decode(#"{"type":"error","ref":"x-2","code":"unknown_join_code","message":"no"}"#), userId: "ana"))
        #expect(refused.0 == 2)
        #expect(refused.1 == .failure(.refused(code: "unknown_join_code", message: "no", retryAfter: nil)))
        let pong = try #require(book.answer(try decoder.decode(#"{"type":"pong","ref":"x-1","serverTime":5}"#), userId: "ana"))
        #expect(pong.0 == 1)
        #expect(book.removeAll().isEmpty)
    }
}
