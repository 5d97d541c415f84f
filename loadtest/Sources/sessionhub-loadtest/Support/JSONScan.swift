/// Finds a few top-level fields in the hub's compact JSON without decoding the whole message.
///
/// The hub writes every message with a fixed key order (`type`, then `sessionId`, `seq`, … —
/// PROTOCOL.md section 5), so the first `"seq":` of a broadcast is its own, before any nested
/// object. The load test reads only what it measures (type, session, seq, its own send tag)
/// from the high-volume broadcasts (`line`, `stats`, `participants`); every reply to one
/// connection goes through the hub's own ``ServerMessageDecoder``. `--full-decode` decodes
/// everything with it instead, to check that the two agree.
struct JSONScan {
    let bytes: UnsafeRawBufferPointer

    /// Offset of `needle` at or after `from`.
    func find(_ needle: StaticString, from: Int = 0) -> Int? {
        let n = needle.utf8CodeUnitCount
        guard n > 0, bytes.count >= n else { return nil }
        let first = needle.utf8Start[0]
        var i = from
        let last = bytes.count - n
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < n && bytes[i + j] == needle.utf8Start[j] { j += 1 }
                if j == n { return i }
            }
            i += 1
        }
        return nil
    }

    /// The raw characters of the string value that follows `key` (which ends with the opening
    /// quote), up to the next quote. Only for values without escapes (ids, codes, types).
    func string(after key: StaticString, from: Int = 0) -> (value: String, end: Int)? {
        guard let start = find(key, from: from) else { return nil }
        let valueStart = start + key.utf8CodeUnitCount
        var i = valueStart
        while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += 1 }
        guard i < bytes.count else { return nil }
        return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<i]), as: UTF8.self), i)
    }

    /// Whether the string value after `key` equals `expected`.
    func stringEquals(after key: StaticString, _ expected: StaticString, from: Int = 0) -> Bool {
        guard let start = find(key, from: from) else { return false }
        let valueStart = start + key.utf8CodeUnitCount
        let n = expected.utf8CodeUnitCount
        guard valueStart + n < bytes.count, bytes[valueStart + n] == UInt8(ascii: "\"") else { return false }
        for k in 0..<n where bytes[valueStart + k] != expected.utf8Start[k] { return false }
        return true
    }

    /// The non-negative integer after `key` (e.g. `"seq":`).
    func integer(after key: StaticString, from: Int = 0) -> (value: Int, end: Int)? {
        guard let start = find(key, from: from) else { return nil }
        return integer(at: start + key.utf8CodeUnitCount)
    }

    /// The non-negative integer starting at `offset`.
    func integer(at offset: Int) -> (value: Int, end: Int)? {
        var i = offset
        var value = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            value = value &* 10 &+ Int(bytes[i] - 48)
            i += 1
            digits += 1
        }
        return digits > 0 ? (value, i) : nil
    }

    /// The type of a hub message: the value of its first key, `"type"`.
    var type: String? {
        string(after: "{\"type\":\"")?.value
    }
}
