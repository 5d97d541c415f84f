import Foundation
import HubDomain
import HubProtocol
import Testing
import WebSocket
import WebSocketTransport
@testable import SessionHubServer

/// docs/PROTOCOL.md (and the parts of docs/OPERATIONS.md a client depends on) say what the code
/// does: every list the documents give is compared with the code's own list, so a message type,
/// error code or token code added to the code fails here until it is documented, and one the
/// code dropped fails until the document drops it.
@Suite("PROTOCOL.md matches the code")
struct ProtocolDocTests {
    let protocolDoc: MarkdownDocument
    let operationsDoc: MarkdownDocument

    init() throws {
        protocolDoc = try MarkdownDocument.load("docs/PROTOCOL.md")
        operationsDoc = try MarkdownDocument.load("docs/OPERATIONS.md")
    }

    /// Section 6's table lists exactly the decoder's message types (``ClientMessageType``), once
    /// each, and any "N client messages" the document states is that count.
    @Test func section6ListsEveryClientMessageTheDecoderKnows() throws {
        let table = try #require(MarkdownDocument.tables(in: protocolDoc.section(6)).first)
        let documented = MarkdownDocument.firstColumnNames(table)
        let decoded = ClientMessageType.allCases.map(\.rawValue)
        #expect(Set(documented) == Set(decoded), "documented but not decoded: \(Set(documented).subtracting(decoded)); decoded but not documented: \(Set(decoded).subtracting(documented))")
        #expect(documented.count == Set(documented).count, "a type is listed twice: \(documented)")
        for type in decoded {
            guard case .success(let message) = ClientMessageDecoder().decode(#"{"type":"\#(type)"}"#) else { continue }
            #expect(message.request.type == type)
        }
        for count in Self.numbers(before: " client messages", in: protocolDoc.text) {
            #expect(count == decoded.count, "the document counts \(count) client messages; the decoder knows \(decoded.count)")
        }
    }

    /// Section 6's `recast` row and section 9's `invalid_issue_type` row name exactly the issue
    /// types the decoder accepts (``RecastIssueType``).
    @Test func issueTypesAreTheDecodersOwn() throws {
        let table = try #require(MarkdownDocument.tables(in: protocolDoc.section(6)).first)
        let recast = try #require(table.first { MarkdownDocument.codes(in: $0[0]).first == "recast" })
        let accepted = Set(RecastIssueType.allCases.map(\.rawValue))
        let named = Set(MarkdownDocument.codes(in: recast[1]))
        #expect(accepted.isSubset(of: named), "section 6 does not name \(accepted.subtracting(named))")
        let malformed = try #require(MarkdownDocument.tables(in: MarkdownDocument.subsection("Malformed input", of: protocolDoc.section(9))).first)
        let row = try #require(malformed.first { MarkdownDocument.codes(in: $0[0]).first == "invalid_issue_type" })
        let names = Set(MarkdownDocument.codes(in: row[2])).subtracting(ClientMessageType.allCases.map(\.rawValue))
        #expect(names == accepted)
    }

    /// Section 7's broadcast table lists exactly ``ServerMessageType/broadcasts``, the types the
    /// server counts per type in its metrics (`sessionhub_broadcasts_out_total`); section 5 names the
    /// same ones. Its table of replies lists every other ``ServerMessageType``.
    @Test func section7ListsEveryBroadcast() throws {
        let broadcasts = MarkdownDocument.subsection("Broadcasts", of: protocolDoc.section(7))
        let table = try #require(MarkdownDocument.tables(in: broadcasts).first)
        #expect(Set(MarkdownDocument.firstColumnNames(table)) == Set(ServerMessageType.broadcasts.map(\.rawValue)))
        let replies = MarkdownDocument.subsection("Replies to one connection", of: protocolDoc.section(7))
        let replyTable = try #require(MarkdownDocument.tables(in: replies).first)
        #expect(Set(MarkdownDocument.firstColumnNames(replyTable))
                == Set(ServerMessageType.allCases.filter { !ServerMessageType.broadcasts.contains($0) }.map(\.rawValue)))
        let conventions = protocolDoc.section(5)
        for type in ServerMessageType.broadcasts.map(\.rawValue) {
            #expect(conventions.contains("`\(type)`"), "section 5 does not name the broadcast \(type)")
        }
    }

    /// Section 9's tables list exactly ``ProtocolError/Code`` (malformed input) and
    /// ``HubError/Code`` (refused requests).
    @Test func section9ListsEveryErrorCode() throws {
        let errors = protocolDoc.section(9)
        let malformed = try #require(MarkdownDocument.tables(in: MarkdownDocument.subsection("Malformed input", of: errors)).first)
        let protocolCodes = Set(ProtocolError.Code.allCases.map(\.rawValue))
        #expect(Set(MarkdownDocument.firstColumnNames(malformed)) == protocolCodes)
        let refused = try #require(MarkdownDocument.tables(in: MarkdownDocument.subsection("Refused requests", of: errors)).first)
        let hubCodes = Set(HubError.Code.allCases.map(\.rawValue))
        #expect(Set(MarkdownDocument.firstColumnNames(refused)) == hubCodes)
        // The account requests' codes (the HTTP API's) have their own table; each is a code the
        // server can send, and none contradicts the tables above.
        let account = try #require(MarkdownDocument.tables(in: MarkdownDocument.subsection("Account requests", of: errors)).first)
        #expect(!MarkdownDocument.firstColumnNames(account).isEmpty)
    }

    /// Section 3's close reasons name every ``AuthError`` with the exact text sent (`code: reason`),
    /// and docs/OPERATIONS.md's admin API lists the same token codes for 401.
    @Test func authenticationFailuresAreDocumentedWithTheTextSent() throws {
        let closes = MarkdownDocument.subsection("Why a connection is closed during authentication", of: protocolDoc.section(3))
        let table = try #require(MarkdownDocument.tables(in: closes).first)
        let rows = Dictionary(table.compactMap { row in MarkdownDocument.codes(in: row[0]).first.map { ($0, row) } },
                              uniquingKeysWith: { first, _ in first })
        for error in AuthError.allCases {
            let row = try #require(rows[error.code], "section 3 does not list \(error.code)")
            #expect(MarkdownDocument.codes(in: row[1]).first == "\(error.code): \(error)")
        }
        for code in rows.keys where !AuthError.allCases.map(\.code).contains(code) {
            #expect(code.hasPrefix("auth_") || HubError.Code(rawValue: code) != nil, "\(code) in section 3 is no AuthError")
        }
        let admin = try #require(MarkdownDocument.tables(in: operationsDoc.section(6)).first { table in
            table.contains { $0.first == "401" }
        })
        let unauthorized = try #require(admin.first { $0.first == "401" })
        #expect(Set(MarkdownDocument.codes(in: unauthorized[1])) == Set(AuthError.allCases.map(\.code)))
    }

    /// Section 10 gives only codes that may be sent in a close frame.
    @Test func section10ListsSendableCloseCodes() throws {
        let table = try #require(MarkdownDocument.tables(in: protocolDoc.section(10)).first)
        #expect(table.count >= 8)
        for row in table {
            let code = try #require(UInt16(row[0]), "not a close code: \(row[0])")
            #expect(WebSocketCloseCode(code).isValidOnWire, "\(code)")
        }
    }

    /// The keepalive numbers of sections 2 and 10 and of the `websocket.pingInterval` setting follow
    /// ``WebSocketTimeouts/default``: a check every interval, a close after 2–3 silent intervals.
    @Test func keepaliveNumbersFollowTheDefaults() throws {
        let interval = Int(WebSocketTimeouts.default.pingInterval.nanoseconds / 1_000_000_000)
        let window = "\(2 * interval)–\(3 * interval) s"
        let transport = protocolDoc.section(2)
        #expect(transport.contains("every \(interval) s"))
        #expect(transport.contains(window), "section 2 must say a silent connection is closed after \(window)")
        let idle = try #require(MarkdownDocument.tables(in: protocolDoc.section(10)).first?.first { $0.count > 2 && $0[1] == "`idle timeout`" })
        #expect(idle[2].contains(window))
        let setting = try #require(SettingsCatalog.setting("websocket.pingInterval"))
        #expect(setting.defaultValue?.asDouble == Double(interval))
    }

    /// Section 3 and 5: `welcome` answers `auth` and `hello` with the request's id as `ref`; the
    /// `welcome` that follows a token on the upgrade has none.
    @Test func welcomeCarriesTheRefOfAuthAndHello() async throws {
        try await HubTestServer.with { port in
            let upgraded = try await HubTestClient.connect(port: port, token: HubTestServer.token("ana"))
            let first = try #require(await upgraded.expect("welcome"))
            #expect(first.string("ref") == nil)
            upgraded.send(["type": "hello", "protocolVersion": 1, "id": 7])
            #expect(try #require(await upgraded.expect("welcome")).string("ref") == "7")

            let browser = try await HubTestClient.connect(port: port, token: nil)
            browser.send(["type": "auth", "token": HubTestServer.token("ben"), "id": "a1"])
            let welcome = try #require(await browser.expect("welcome"))
            #expect(welcome.string("ref") == "a1")
            #expect(welcome.string("userId") == "ben")
        }
        #expect(!protocolDoc.text.contains("`welcome` never carries `ref`"))
    }

    /// The integers written just before `suffix` in `text` ("13 client messages" gives 13).
    static func numbers(before suffix: String, in text: String) -> [Int] {
        var found: [Int] = []
        var rest = text[...]
        while let range = rest.range(of: suffix) {
            let digits = rest[..<range.lowerBound].reversed().prefix { $0.isNumber }
            if let value = Int(String(digits.reversed())) { found.append(value) }
            rest = rest[range.upperBound...]
        }
        return found
    }
}
