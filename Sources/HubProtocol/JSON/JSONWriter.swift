/// A small, fast JSON writer with a fixed key order: the server encodes every broadcast once,
/// so this is on the fan-out path. Produces compact UTF-8 JSON text.
public struct JSONWriter: Sendable {
    /// The UTF-8 bytes so far.
    public private(set) var utf8: [UInt8] = []
    /// One bit per open object or array, innermost lowest: whether its next item needs a comma.
    private var commas: UInt64 = 0
    /// Open objects and arrays; at most 64 (the hub's messages nest a handful deep).
    private var depth = 0

    /// The text so far.
    public var output: String { String(decoding: utf8, as: UTF8.self) }

    /// Creates an empty writer.
    public init() {
        utf8.reserveCapacity(256)
    }

    /// `{`
    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    /// `}`
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    /// `[`
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    /// `]`
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// `"name":` inside an object; the value follows.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        utf8.append(UInt8(ascii: ":"))
        commas &= ~1  // the value that follows needs no comma
    }

    /// A string value.
    public mutating func value(_ string: String) { separate(); appendQuoted(string) }
    /// An integer value.
    public mutating func value(_ number: Int) { separate(); appendInteger(Int64(number)) }
    /// An integer value.
    public mutating func value(_ number: Int64) { separate(); appendInteger(number) }
    /// A boolean value.
    public mutating func value(_ flag: Bool) { separate(); utf8.append(contentsOf: flag ? Self.trueBytes : Self.falseBytes) }
    /// `null`.
    public mutating func null() { separate(); utf8.append(contentsOf: Self.nullBytes) }

    /// Appends already-encoded JSON (an object or array produced by a JSON encoder) as a value.
    public mutating func raw(_ json: String) { separate(); utf8.append(contentsOf: json.utf8) }

    /// `"name": string` (or `null`).
    public mutating func field(_ name: String, _ string: String?) {
        key(name)
        if let string { value(string) } else { null() }
    }
    /// `"name": number`.
    public mutating func field(_ name: String, _ number: Int) { key(name); value(number) }
    /// `"name": number` (or `null`).
    public mutating func field(_ name: String, _ number: Int64?) {
        key(name)
        if let number { value(number) } else { null() }
    }
    /// `"name": flag`.
    public mutating func field(_ name: String, _ flag: Bool) { key(name); value(flag) }
    /// `"name": [strings]`.
    public mutating func field(_ name: String, strings: [String]) {
        key(name)
        beginArray()
        for string in strings { value(string) }
        endArray()
    }
    /// `"ref": id` only when there is one.
    public mutating func optionalField(_ name: String, _ string: String?) {
        if let string { field(name, string) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)

    private mutating func open(_ bracket: UInt8) {
        separate()
        utf8.append(bracket)
        precondition(depth < 64, "JSONWriter nests at most 64 levels")
        depth += 1
        commas <<= 1
    }

    private mutating func close(_ bracket: UInt8) {
        utf8.append(bracket)
        depth -= 1
        commas >>= 1
    }

    /// A comma before every item of an object or array but its first.
    private mutating func separate() {
        guard depth > 0 else { return }
        if commas & 1 == 1 { utf8.append(UInt8(ascii: ",")) } else { commas |= 1 }
    }

    private mutating func appendInteger(_ number: Int64) {
        if number < 0 {
            utf8.append(UInt8(ascii: "-"))
            // The magnitude as unsigned, so Int64.min has one too.
            appendDigits(UInt64(bitPattern: 0 &- number))
        } else {
            appendDigits(UInt64(number))
        }
    }

    private mutating func appendDigits(_ value: UInt64) {
        guard value >= 10 else {
            utf8.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // UInt64.max has 20 digits; 24 bytes of room
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value, at = buffer.count
            while rest > 0 {
                at -= 1
                buffer[at] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
            }
            utf8.append(contentsOf: buffer[at...])
        }
    }

    private mutating func appendQuoted(_ string: String) {
        utf8.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { bytes in
            var plainStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte == 0x22 || byte == 0x5C || byte < 0x20 else { continue }
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
                utf8.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: utf8.append(UInt8(ascii: "\""))
                case 0x5C: utf8.append(UInt8(ascii: "\\"))
                case 0x0A: utf8.append(UInt8(ascii: "n"))
                case 0x0D: utf8.append(UInt8(ascii: "r"))
                case 0x09: utf8.append(UInt8(ascii: "t"))
                default:
                    utf8.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                             Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
                }
                plainStart = index + 1
            }
            utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
        }
        utf8.append(UInt8(ascii: "\""))
    }
}
