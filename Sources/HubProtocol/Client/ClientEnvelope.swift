import Foundation

/// Every field any client message may carry; which ones are required depends on `type`. Read by
/// Foundation's `JSONDecoder` (``ClientMessageDecoder/decodeWithFoundation(_:)``) or, for a plain
/// message, by ``PlainEnvelopeScanner``.
struct ClientEnvelope: Decodable {
    var type: String?
    var id: RequestID?
    var protocolVersion: Int?
    var token: String?
    var scenarioId: String?
    var maxPlayers: Int?
    var code: String?
    var resumeToken: String?
    var lastSeq: Int?
    var textNative: String?
    var textTranslated: String?
    var clientId: String?
    var lineId: String?
    var correctedText: String?
    var explanation: String?
    var issueTypes: [String]?
    var recastId: String?
    var limit: Int?
    var before: Int64?
    var sessionId: String?
    var profile: Present?

    init() {}

    /// A field that only needs to be there (its content is read elsewhere).
    struct Present: Decodable {
        init(from decoder: any Decoder) throws {
            guard (try? decoder.container(keyedBy: AnyKey.self)) != nil else {
                throw DecodingError.typeMismatch([String: String].self, .init(codingPath: decoder.codingPath,
                                                                               debugDescription: "an object is expected"))
            }
        }
    }

    fileprivate struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A request id: a JSON string or integer.
    struct RequestID: Decodable {
        var text: String
        init(text: String) { self.text = text }
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else {
                text = String(try container.decode(Int64.self))
            }
        }
    }
}
