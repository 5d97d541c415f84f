/// Base64url without padding (RFC 4648 §5), as JWTs use it.
enum Base64URL {
    /// The 64 letters, by value.
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes (every resume token a join issues goes through here: written directly,
    /// without Foundation's base64 and three string replacements).
    static func encode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { out in
            var written = 0
            func put(_ sextet: UInt32) {
                out[written] = alphabet[Int(sextet & 0x3F)]
                written += 1
            }
            var index = 0
            while index + 3 <= input.count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                put(group >> 18); put(group >> 12); put(group >> 6); put(group)
                index += 3
            }
            switch input.count - index {
            case 1:
                let group = UInt32(input[index]) << 16
                put(group >> 18); put(group >> 12)
            case 2:
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                put(group >> 18); put(group >> 12); put(group >> 6)
            default:
                break
            }
            return written
        }
    }

    /// Decodes text; nil when it is not canonical base64url: only the 64 letters of the
    /// alphabet (no padding, no white space), and the unused low bits of the last character
    /// zero, so that each byte string has exactly one spelling (``encode(_:)``'s).
    static func decode(_ text: Substring) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            guard let value = sextet(byte) else { return nil }
            values.append(value)
        }
        switch values.count % 4 {
        case 1: return nil
        case 2: if values[values.count - 1] & 0x0F != 0 { return nil }
        case 3: if values[values.count - 1] & 0x03 != 0 { return nil }
        default: break
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 1 < values.count {
            let a = values[index], b = values[index + 1]
            bytes.append(a << 2 | b >> 4)
            if index + 2 < values.count {
                let c = values[index + 2]
                bytes.append(b << 4 | c >> 2)
                if index + 3 < values.count { bytes.append(c << 6 | values[index + 3]) }
            }
            index += 4
        }
        return bytes
    }

    /// The value of one base64url character, or nil.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
