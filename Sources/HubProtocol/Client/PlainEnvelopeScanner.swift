import Foundation

/// The fast path of ``ClientMessageDecoder``: reads the envelope of a *plain* client message — one
/// JSON object whose known fields hold strings, integers, or (for `issueTypes`) an array of
/// strings, and whose unknown fields hold scalars — in one pass over the bytes, without
/// Foundation's decoder.
///
/// Anything else returns nil and the decoder takes Foundation's path, which then gives the same
/// answer it always gave, errors included: a `null`, a number with a fraction or an exponent, a
/// leading zero, an overflow, a key with an escape, a repeated known key, a nested value under an
/// unknown key, an object `profile`, malformed JSON or text that is not UTF-8 (the values are read
/// by ``JSONCursor``, which leaves all of that to Foundation). So the fast path
/// never decides an error, and where it answers, it answers as Foundation would
/// (`PlainEnvelopeScannerTests` checks the two paths agree on generated and mutated messages).
struct PlainEnvelopeScanner {
    private var cursor: JSONCursor

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.cursor = JSONCursor(bytes)
    }

    /// The fields of `data`, or nil when it is not a plain message.
    static func scan(_ data: Data) -> ClientEnvelope? {
        data.withUnsafeBytes { scan($0) }
    }

    /// The fields of the message in `bytes`, or nil when it is not a plain message.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> ClientEnvelope? {
        var scanner = PlainEnvelopeScanner(bytes)
        return scanner.object()
    }

    // MARK: Grammar

    private mutating func object() -> ClientEnvelope? {
        guard cursor.take(UInt8(ascii: "{")) else { return nil }
        var fields = ClientEnvelope()
        var seen: UInt32 = 0
        if cursor.take(UInt8(ascii: "}")) { return cursor.atEnd() ? fields : nil }
        while true {
            guard let key = cursor.plainKey(), cursor.take(UInt8(ascii: ":")) else { return nil }
            if let bit = Self.bits[key] {
                guard seen & bit == 0 else { return nil }
                seen |= bit
                guard read(key, into: &fields) else { return nil }
            } else {
                guard skipScalar() else { return nil }
            }
            if cursor.take(UInt8(ascii: ",")) { continue }
            return cursor.take(UInt8(ascii: "}")) && cursor.atEnd() ? fields : nil
        }
    }

    private static let bits: [String: UInt32] = {
        let names = ["type", "id", "protocolVersion", "token", "scenarioId", "maxPlayers", "code", "resumeToken", "lastSeq",
                     "textNative", "textTranslated", "clientId", "lineId", "correctedText", "explanation", "issueTypes",
                     "recastId", "limit", "before", "sessionId", "profile"]
        var bits: [String: UInt32] = [:]
        for (offset, name) in names.enumerated() { bits[name] = 1 << UInt32(offset) }
        return bits
    }()

    private mutating func read(_ key: String, into fields: inout ClientEnvelope) -> Bool {
        switch key {
        case "id":
            let text = cursor.next == UInt8(ascii: "\"") ? cursor.string() : cursor.integer().map { String($0) }
            fields.id = text.map(ClientEnvelope.RequestID.init(text:))
            return text != nil
        case "protocolVersion": fields.protocolVersion = cursor.integer(); return fields.protocolVersion != nil
        case "maxPlayers": fields.maxPlayers = cursor.integer(); return fields.maxPlayers != nil
        case "lastSeq": fields.lastSeq = cursor.integer(); return fields.lastSeq != nil
        case "limit": fields.limit = cursor.integer(); return fields.limit != nil
        case "before": fields.before = cursor.integer().map(Int64.init); return fields.before != nil
        case "issueTypes":
            var items: [String] = []
            let read = cursor.array { cursor in
                guard let item = cursor.string() else { return false }
                items.append(item)
                return true
            }
            fields.issueTypes = read ? items : nil
            return read
        case "profile": return false
        default:
            guard let value = cursor.string() else { return false }
            switch key {
            case "type": fields.type = value
            case "token": fields.token = value
            case "scenarioId": fields.scenarioId = value
            case "code": fields.code = value
            case "resumeToken": fields.resumeToken = value
            case "textNative": fields.textNative = value
            case "textTranslated": fields.textTranslated = value
            case "clientId": fields.clientId = value
            case "lineId": fields.lineId = value
            case "correctedText": fields.correctedText = value
            case "explanation": fields.explanation = value
            case "recastId": fields.recastId = value
            case "sessionId": fields.sessionId = value
            default: return false
            }
            return true
        }
    }

    /// Skips a string, an integer, `true` or `false` under an unknown key (nil, objects, arrays
    /// and other numbers are left to Foundation).
    private mutating func skipScalar() -> Bool {
        switch cursor.next {
        case UInt8(ascii: "\""): return cursor.string() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return cursor.bool() != nil
        default: return cursor.integer() != nil
        }
    }
}
