/// The head of an HTTP/1.1 request that may be a WebSocket upgrade, as plain values.
///
/// The transport parses the request (with NIOHTTP1) and copies the parts here;
/// ``ServerHandshake/evaluate(_:configuration:)`` then decides whether to switch protocols.
public struct HandshakeRequest: Sendable {
    /// The request method, case-sensitive (`"GET"`).
    public var method: String
    /// The request-target as sent, e.g. `"/echo?token=abc"` (origin-form) or an absolute URI.
    public var target: String
    /// The major HTTP version (1 for HTTP/1.1).
    public var versionMajor: Int
    /// The minor HTTP version (1 for HTTP/1.1).
    public var versionMinor: Int
    /// The header fields in the order received, repeated fields kept as separate entries.
    public var headers: [(name: String, value: String)]

    /// Creates a request head from its parts.
    public init(
        method: String,
        target: String,
        versionMajor: Int = 1,
        versionMinor: Int = 1,
        headers: [(name: String, value: String)]
    ) {
        self.method = method
        self.target = target
        self.versionMajor = versionMajor
        self.versionMinor = versionMinor
        self.headers = headers
    }

    /// The values of every header field called `name` (compared ignoring ASCII case), in order.
    public func values(of name: String) -> [String] {
        headers.compactMap { HTTPHeaderTokens.equalsIgnoringASCIICase($0.name, name) ? $0.value : nil }
    }

    /// The path of the target, still percent-encoded: everything before `?` or `#`.
    ///
    /// For an absolute-form target (`ws://host/chat?x=1`) this is the path after the authority
    /// (`/chat`), or `/` when there is none.
    public var path: String {
        var rest = beforeQueryAndFragment
        if !rest.hasPrefix("/"),
           let colon = rest.firstIndex(of: ":"),
           rest[colon...].hasPrefix("://") {
            let authorityStart = rest.index(colon, offsetBy: 3)
            guard let slash = rest[authorityStart...].firstIndex(of: "/") else { return "/" }
            rest = rest[slash...]
        }
        return String(rest)
    }

    /// The raw query of the target (between `?` and `#`), or `nil` when it has none.
    public var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        let afterMark = target[target.index(after: mark)...]
        let end = afterMark.firstIndex(of: "#") ?? afterMark.endIndex
        return String(afterMark[..<end])
    }

    /// The value of the first query parameter called `name`, percent-decoded.
    ///
    /// Parameters are separated by `&`; a parameter without `=` has the empty value. Names are
    /// compared after decoding and case-sensitively. `+` is kept as a literal plus sign (it is not
    /// turned into a space), so unencoded base64 tokens survive. Parameters whose escapes are
    /// malformed or decode to invalid UTF-8 are skipped.
    public func queryItem(_ name: String) -> String? {
        guard let query else { return nil }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let rawName: Substring, rawValue: Substring
            if let equals = item.firstIndex(of: "=") {
                rawName = item[..<equals]
                rawValue = item[item.index(after: equals)...]
            } else {
                rawName = item
                rawValue = item[item.endIndex...]
            }
            guard let decodedName = Self.percentDecoded(rawName), decodedName == name else { continue }
            guard let decodedValue = Self.percentDecoded(rawValue) else { continue }
            return decodedValue
        }
        return nil
    }

    /// The target up to its first `?` or `#`.
    private var beforeQueryAndFragment: Substring {
        let end = target.firstIndex { $0 == "?" || $0 == "#" } ?? target.endIndex
        return target[..<end]
    }

    /// `text` with `%XX` escapes replaced by their bytes, or `nil` if an escape is malformed or
    /// the result is not valid UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        let input = Array(text.utf8)
        guard input.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < input.count,
                      let high = hexValue(input[index + 1]),
                      let low = hexValue(input[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
