import HubDomain
import HubProtocol
import Testing

@Suite("Client message decoding")
struct ClientMessageDecoderTests {
    let decoder = ClientMessageDecoder()

    private func decode(_ text: String) -> Result<ClientMessage, ProtocolError> { decoder.decode(text) }

    @Test("Every request type decodes with its fields; ids may be strings or integers")
    func requests() throws {
        #expect(try decode(#"{"type":"say","id":"a1","textNative":"Hola","textTranslated":"Hi"}"#).get()
            == ClientMessage(id: "a1", request: .say(textNative: "Hola", textTranslated: "Hi")))
        #expect(try decode(#"{"type":"join","id":7,"code":"abc234"}"#).get()
            == ClientMessage(id: "7", request: .join(code: "abc234")))
        #expect(try decode(#"{"type":"host","scenarioId":"x","maxPlayers":3}"#).get().request
            == .host(scenarioId: "x", maxPlayers: 3))
        #expect(try decode(#"{"type":"resume","resumeToken":"t","lastSeq":4}"#).get().request
            == .resume(resumeToken: "t", lastSeq: 4))
        #expect(try decode(#"{"type":"recast","lineId":"l1","correctedText":"c","issueTypes":["grammar","sentence_structure"]}"#).get().request
            == .recast(lineId: "l1", correctedText: "c", explanation: nil, issueTypes: [.grammar, .sentenceStructure]))
        #expect(try decode(#"{"type":"acceptRecast","recastId":"r1","extra":{"ignored":true}}"#).get().request == .acceptRecast(recastId: "r1"))
        for (type, request) in [("leave", ClientRequest.leave), ("end", .end), ("ping", .ping), ("scenarios", .scenarios)] {
            #expect(try decode(#"{"type":"\#(type)"}"#).get().request == request)
        }
    }

    @Test("Malformed input gets a stable code and keeps the ref when it can")
    func errors() {
        func code(_ text: String) -> (String?, String?) {
            if case .failure(let error) = decode(text) { return (error.code.rawValue, error.ref) }
            return (nil, nil)
        }
        #expect(code("not json").0 == "malformed_json")
        #expect(code("[1,2]").0 == "malformed_json")
        #expect(code(#"{"id":"x"}"#) == ("missing_field", "x"))
        #expect(code(#"{"type":"teleport","id":"q"}"#) == ("unknown_type", "q"))
        #expect(code(#"{"type":"say","id":"s"}"#) == ("missing_field", "s"))
        #expect(code(#"{"type":"host","id":"h","scenarioId":"x","maxPlayers":"many"}"#) == ("invalid_field", "h"))
        #expect(code(#"{"type":"recast","id":"r","lineId":"l1","correctedText":"c","issueTypes":["spelling"]}"#) == ("invalid_issue_type", "r"))
        #expect(code(#"{"type":"ping","id":"\#(String(repeating: "x", count: 65))"}"#).0 == "invalid_field")
        // Found by fuzzing (Fuzzing/, target client-message): an over-long id in a message that
        // fails on another field used to be echoed whole as the error's ref.
        let long = String(repeating: "i", count: 65)
        #expect(code(#"{"type":"history","limit":1.5,"id":"\#(long)"}"#) == ("invalid_field", nil))
        #expect(code(#"{"type":"host","maxPlayers":"many","id":"\#(long)"}"#) == ("invalid_field", nil))
    }
}
