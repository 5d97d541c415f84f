/// A small, fast JSON writer with a fixed key order: the server encodes every broadcast once,
/// so this is on the fan-out path. Produces compact UTF-8 JSON text.
public struct JSONWriter: Sendable {
    /// The text so far.
    public private(set) var output: String = ""
    private var needsComma: [Bool] = []

    /// Creates an empty writer.
    public init() {
        output.reserveCapacity(256)
    }

    /// `{`
    public mutating func beginObject() { separate(); output.append("{"); needsComma.append(false) }
    /// `}`
    public mutating func endObject() { output.append("}"); needsComma.removeLast() }
    /// `[`
    public mutating func beginArray() { separate(); output.append("["); needsComma.append(false) }
    /// `]`
    public mutating func endArray() { output.append("]"); needsComma.removeLast() }

    /// `"name":` inside an object; the value follows.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        output.append(":")
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    /// A string value.
    public mutating func value(_ string: String) { separate(); appendQuoted(string) }
    /// An integer value.
    public mutating func value(_ number: Int) { separate(); output.append(String(number)) }
    /// An integer value.
    public mutating func value(_ number: Int64) { separate(); output.append(String(number)) }
    /// A boolean value.
    public mutating func value(_ flag: Bool) { separate(); output.append(flag ? "true" : "false") }
    /// `null`.
    public mutating func null() { separate(); output.append("null") }

    /// Appends already-encoded JSON (an object or array produced by a JSON encoder) as a value.
    public mutating func raw(_ json: String) { separate(); output.append(json) }

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

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { output.append(",") } else { needsComma[needsComma.count - 1] = true }
    }

    private mutating func appendQuoted(_ string: String) {
        output.append("\"")
        var plainStart = string.utf8.startIndex
        let utf8 = string.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 {
                output.append(contentsOf: string[plainStart..<index])
                switch byte {
                case 0x22: output.append("\\\"")
                case 0x5C: output.append("\\\\")
                case 0x0A: output.append("\\n")
                case 0x0D: output.append("\\r")
                case 0x09: output.append("\\t")
                default:
                    let hex = String(byte, radix: 16)
                    output.append("\\u00" + (hex.count == 1 ? "0" + hex : hex))
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output.append(contentsOf: string[plainStart..<utf8.endIndex])
        output.append("\"")
    }
}
