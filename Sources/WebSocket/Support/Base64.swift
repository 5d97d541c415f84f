/// Standard base64 (RFC 4648 §4, alphabet `A–Z a–z 0–9 + /`, `=` padding), as used by the
/// `Sec-WebSocket-Key` and `Sec-WebSocket-Accept` header fields (RFC 6455 §4.1, §4.2.2).
///
/// Decoding is strict: no whitespace, no line breaks, no URL-safe alphabet, padding required, and
/// the unused bits of the last character must be zero (RFC 4648 §3.5), so every byte string has
/// exactly one accepted encoding.
package enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the alphabet.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    private static let pad = UInt8(ascii: "=")

    /// The padded base64 encoding of `bytes`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(second == nil ? pad : alphabet[Int(group >> 6 & 0x3F)])
            output.append(third == nil ? pad : alphabet[Int(group & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes encoded by `text`, or `nil` if it is not canonical padded base64.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let v0 = reverse[Int(input[index])]
            let v1 = reverse[Int(input[index + 1])]
            guard v0 != 0xFF, v1 != 0xFF else { return nil }
            let c2 = input[index + 2], c3 = input[index + 3]
            if isLast && c2 == pad {
                // One byte: "xx==", and the low 4 bits of the second character are unused.
                guard c3 == pad, v1 & 0x0F == 0 else { return nil }
                output.append(v0 << 2 | v1 >> 4)
            } else if isLast && c3 == pad {
                // Two bytes: "xxx=", and the low 2 bits of the third character are unused.
                let v2 = reverse[Int(c2)]
                guard v2 != 0xFF, v2 & 0x03 == 0 else { return nil }
                output.append(v0 << 2 | v1 >> 4)
                output.append(v1 << 4 | v2 >> 2)
            } else {
                let v2 = reverse[Int(c2)]
                let v3 = reverse[Int(c3)]
                guard v2 != 0xFF, v3 != 0xFF else { return nil }
                output.append(v0 << 2 | v1 >> 4)
                output.append(v1 << 4 | v2 >> 2)
                output.append(v2 << 6 | v3)
            }
            index += 4
        }
        return output
    }
}
