/// A forward-only reader of JSON over UTF-8 bytes, for the decoders' fast paths
/// (``BroadcastFastPath``). It takes only what Foundation's `JSONDecoder` takes the same way:
/// every read returns nil (or false) on anything else — a number with a fraction or an exponent,
/// an overflow, a string that is not valid UTF-8, a raw control character, a lone surrogate,
/// nesting deeper than ``maxDepth`` — and the caller then decodes with Foundation, which decides.
struct JSONCursor {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    /// Nesting deeper than this is left to Foundation.
    static let maxDepth = 32

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Skips white space, then takes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// The next byte after white space, not taken.
    var next: UInt8? {
        mutating get {
            skipSpace()
            return current
        }
    }

    /// `true` or `false`, taken if it is next.
    mutating func bool() -> Bool? {
        skipSpace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A member's key without escapes (a key with one is left to Foundation).
    mutating func plainKey() -> String? {
        skipSpace()
        guard current == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let key = String(validating: UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
                index = end + 1
                return key
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            end += 1
        }
        return nil
    }

    /// Only white space is left.
    mutating func atEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    /// `null`, taken if it is next.
    mutating func null() -> Bool {
        skipSpace()
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// An integer without fraction or exponent that fits an `Int`.
    mutating func integer() -> Int? {
        skipSpace()
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard let first = current, (0x30...0x39).contains(first) else { return nil }
        var value = 0
        var digits = 0
        while let byte = current, (0x30...0x39).contains(byte) {
            if digits == 1 && value == 0 { return nil }  // leading zero
            let digit = Int(byte - 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
        return value
    }

    /// A string, unescaped.
    mutating func string() -> String? {
        skipSpace()
        guard current == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        // The common case: no escape, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return String(validating: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        var out = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                out.append(byte)
            }
        }
        return nil
    }

    /// After `\u`: four hex digits, and a second escape for a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        guard !(0xDC00...0xDFFF).contains(high) else { return nil }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            case 0x41...0x46: digit = byte - 0x41 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The members of an object: `member` is called with each key, positioned at its value,
    /// and must read the value (false stops everything). False when the object is malformed.
    mutating func object(_ member: (inout JSONCursor, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    /// The elements of an array: `element` reads each (false stops everything).
    mutating func array(_ element: (inout JSONCursor) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]"))
        }
    }

    /// Skips one value of any kind (an unknown member's).
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < Self.maxDepth else { return false }
        skipSpace()
        switch current {
        case UInt8(ascii: "{"):
            return object { cursor, _ in cursor.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            return array { $0.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "n"):
            return null()
        case UInt8(ascii: "t"):
            return literal("true")
        case UInt8(ascii: "f"):
            return literal("false")
        default:
            return integer() != nil
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { return false }
        index += count
        return true
    }
}
