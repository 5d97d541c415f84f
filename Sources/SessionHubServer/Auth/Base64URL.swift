import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
enum Base64URL {
    /// Encodes bytes.
    static func encode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
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
