import Foundation

/// The fast path of ``ClientMessageDecoder``: reads the envelope of a *plain* client message — one
/// JSON object whose known fields hold strings, integers, or (for `issueTypes`) an array of
/// strings, and whose unknown fields hold scalars — in one pass over the bytes, without
/// Foundation's decoder.
///
/// Anything else returns nil and the decoder takes Foundation's path, which then gives the same
/// answer it always gave, errors included: a `null`, a number with a fraction or an exponent, a
/// leading zero, an overflow, a key with an escape, a repeated known key, a nested value under an
/// unknown key, an object `profile`, malformed JSON or text that is not UTF-8. So the fast path
/// never decides an error, and where it answers, it answers as Foundation would
/// (`PlainEnvelopeScannerTests` checks the two paths agree on generated and mutated messages).
struct PlainEnvelopeScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The fields of `data`, or nil when it is not a plain message.
    static func scan(_ data: Data) -> ClientEnvelope? {
        data.withUnsafeBytes { raw in
            var scanner = PlainEnvelopeScanner(raw)
            return scanner.object()
        }
    }

    // MARK: Grammar

    private mutating func object() -> ClientEnvelope? {
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var fields = ClientEnvelope()
        var seen: UInt32 = 0
        skipSpace()
        if take(UInt8(ascii: "}")) { return end() ? fields : nil }
        while true {
            skipSpace()
            guard let key = plainKey() else { return nil }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            guard let bit = Self.bits[key] else {
                guard skipScalar() else { return nil }
                if !separator() { return end() ? fields : nil }
                continue
            }
            guard seen & bit == 0 else { return nil }
            seen |= bit
            guard read(key, into: &fields) else { return nil }
            if !separator() { return end() ? fields : nil }
        }
    }

    /// After a value: true after a comma (another member follows), false after the closing
    /// brace; a nil-like failure is folded into `end()` by the caller via `index`.
    private mutating func separator() -> Bool {
        skipSpace()
        if take(UInt8(ascii: ",")) { return true }
        if take(UInt8(ascii: "}")) { return false }
        index = bytes.count + 1   // neither: makes end() fail
        return false
    }

    /// Only whitespace after the object.
    private mutating func end() -> Bool {
        guard index <= bytes.count else { return false }
        skipSpace()
        return index == bytes.count
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
            let text = peek == UInt8(ascii: "\"") ? string() : integer(Int64.self).map { String($0) }
            fields.id = text.map(ClientEnvelope.RequestID.init(text:))
            return text != nil
        case "protocolVersion": fields.protocolVersion = integer(Int.self); return fields.protocolVersion != nil
        case "maxPlayers": fields.maxPlayers = integer(Int.self); return fields.maxPlayers != nil
        case "lastSeq": fields.lastSeq = integer(Int.self); return fields.lastSeq != nil
        case "limit": fields.limit = integer(Int.self); return fields.limit != nil
        case "before": fields.before = integer(Int64.self); return fields.before != nil
        case "issueTypes": fields.issueTypes = stringArray(); return fields.issueTypes != nil
        case "profile": return false
        default:
            guard let value = string() else { return false }
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

    // MARK: Values

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// A key without escapes.
    private mutating func plainKey() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while let byte = peek {
            if byte == UInt8(ascii: "\"") {
                let key = Self.text(bytes[start..<index])
                index += 1
                return key
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON string, escapes decoded; nil for anything Foundation might read otherwise.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The common case: no escape.
        while let byte = peek, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            if byte < 0x20 { return nil }
            index += 1
        }
        guard let stop = peek else { return nil }
        if stop == UInt8(ascii: "\"") {
            let text = Self.text(bytes[start..<index])
            index += 1
            return text
        }
        var utf8 = Array(bytes[start..<index])
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return Self.text(utf8)
            case UInt8(ascii: "\\"):
                guard let escape = peek else { return nil }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    utf8.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `XXXX` (after `\u`), with a following `\uXXXX` low surrogate when it is a
    /// high one; nil for a lone surrogate or bad hex.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)` that fits `T`, not followed by a fraction or an exponent.
    private mutating func integer<T: FixedWidthInteger & SignedInteger>(_: T.Type) -> T? {
        let negative = take(UInt8(ascii: "-"))
        guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) { return nil }
            return notFollowedByFraction() ? 0 : nil
        }
        var value: T = 0
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let digit = T(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = sum
            index += 1
        }
        return notFollowedByFraction() ? value : nil
    }

    private func notFollowedByFraction() -> Bool {
        guard let next = peek else { return true }
        return next != UInt8(ascii: ".") && next != UInt8(ascii: "e") && next != UInt8(ascii: "E")
    }

    /// The text of UTF-8 bytes, nil when they are not valid UTF-8 (decoding is lossless exactly
    /// when the bytes are valid: an invalid sequence would come back as U+FFFD).
    private static func text(_ utf8: some Collection<UInt8>) -> String? {
        let text = String(decoding: utf8, as: UTF8.self)
        if utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.utf8.elementsEqual(utf8) ? text : nil
    }

    private mutating func stringArray() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var items: [String] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return items }
        while true {
            skipSpace()
            guard let item = string() else { return nil }
            items.append(item)
            skipSpace()
            if take(UInt8(ascii: "]")) { return items }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    /// Skips a string, an integer, `true` or `false` under an unknown key (nil, objects, arrays
    /// and other numbers are left to Foundation).
    private mutating func skipScalar() -> Bool {
        switch peek {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        default: return integer(Int64.self) != nil
        }
    }

    private mutating func literal(_ word: String) -> Bool {
        var at = index
        for byte in word.utf8 {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
        }
        index = at
        return true
    }
}
