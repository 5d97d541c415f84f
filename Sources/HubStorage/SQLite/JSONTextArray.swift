/// A JSON array of strings, written directly (RFC 8259 escaping): what SQLite's `json_each(?)`
/// reads when a statement takes a list of values as one parameter. Foundation's encoder was a
/// quarter of a session's word-review write.
enum JSONTextArray {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `["a","b\"c",…]` for `strings`, in their order.
    static func encode(_ strings: some Sequence<String>) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for string in strings {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0..<0x20:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
