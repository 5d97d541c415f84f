/// A close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit code.
    public var rawValue: UInt16

    /// Wraps a raw code (any value; see ``isValidOnWire``).
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Wraps a raw code.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = Self(1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = Self(1001)
    /// 1002: protocol error.
    public static let protocolError = Self(1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = Self(1003)
    /// 1005: no status code was present (never sent on the wire).
    public static let noStatusReceived = Self(1005)
    /// 1006: the connection dropped without a close frame (never sent on the wire).
    public static let abnormalClosure = Self(1006)
    /// 1007: message data inconsistent with its type (invalid UTF-8 in a text message).
    public static let invalidPayload = Self(1007)
    /// 1008: policy violation (authentication, abuse).
    public static let policyViolation = Self(1008)
    /// 1009: message too big.
    public static let messageTooBig = Self(1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = Self(1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = Self(1011)
    /// 1012: the service is restarting.
    public static let serviceRestart = Self(1012)
    /// 1013: try again later (overload).
    public static let tryAgainLater = Self(1013)

    /// Whether this code may appear in a close frame on the wire (RFC 6455 §7.4.1–§7.4.2 and the
    /// IANA registry): 1000–1003, 1007–1014, and 3000–4999. 1004–1006 and 1015 are reserved and
    /// must never be sent; 0–999, 1016–2999 and ≥ 5000 are not assigned.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The decimal code.
    public var description: String { String(rawValue) }
}
