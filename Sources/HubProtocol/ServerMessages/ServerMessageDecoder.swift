import Foundation

/// Decodes the hub's JSON text messages into ``ServerMessage`` values: the client-side
/// counterpart of ``ServerMessageEncoder``. Unknown keys are ignored; an unknown `type` is
/// ``ServerMessage/other(type:)``, not an error.
public struct ServerMessageDecoder: Sendable {
    /// Why a message could not be decoded.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a JSON object.
        case malformedJSON
        /// A JSON object without a string `type`.
        case missingType
        /// A known `type` whose fields do not match the protocol.
        case invalidMessage(type: String, detail: String)

        /// A readable message.
        public var description: String {
            switch self {
            case .malformedJSON: "the message is not a JSON object"
            case .missingType: "the message has no type"
            case .invalidMessage(let type, let detail): "invalid \(type) message: \(detail)"
            }
        }
    }

    private struct TypeOnly: Decodable {
        var type: String?
    }

    /// Creates a decoder.
    public init() {}

    /// Decodes UTF-8 JSON.
    public func decode(_ data: Data) throws(Failure) -> ServerMessage {
        let decoder = JSONDecoder()
        let type: String
        // Whether the whole message was read as JSON already.
        let parsed: Bool
        if let leading = Self.leadingType(data) {
            // The hub writes `type` first: no second pass over the message to find it. A
            // message that is not JSON after all fails in the decode below (and one passed on
            // as `.other` is checked to be JSON first).
            type = leading
            parsed = false
        } else {
            let probe: TypeOnly
            do {
                probe = try decoder.decode(TypeOnly.self, from: data)
            } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
                throw .missingType  // `type` is there but not a string
            } catch {
                throw .malformedJSON
            }
            guard let probed = probe.type else { throw .missingType }
            type = probed
            parsed = true
        }
        func body<T: Decodable>(_ kind: T.Type) throws(Failure) -> T {
            do {
                return try decoder.decode(kind, from: data)
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                throw .malformedJSON  // not JSON at all, though it starts like a message
            } catch {
                throw .invalidMessage(type: type, detail: Self.describe(error))
            }
        }
        switch ServerMessageType(rawValue: type) {
        case .welcome: return .welcome(try body(ServerMessage.Welcome.self))
        case .joined: return .joined(try body(ServerMessage.Joined.self))
        case .resumed: return .resumed(try body(ServerMessage.Resumed.self))
        case .scenarios: return .scenarios(try body(ServerMessage.ScenarioList.self))
        case .pong: return .pong(try body(ServerMessage.Pong.self))
        case .left: return .left(try body(ServerMessage.Left.self))
        case .error: return .error(try body(ServerMessage.ErrorReply.self))
        case .participants: return .participants(try body(ServerMessage.ParticipantsBroadcast.self))
        case .line:
            if let fast = BroadcastFastPath.line(data) { return .line(fast) }
            return .line(try body(ServerMessage.LineBroadcast.self))
        case .recast: return .recast(try body(ServerMessage.RecastBroadcast.self))
        case .recastAccepted: return .recastAccepted(try body(ServerMessage.RecastAcceptedBroadcast.self))
        case .hostChanged: return .hostChanged(try body(ServerMessage.HostChangedBroadcast.self))
        case .stats:
            if let fast = BroadcastFastPath.stats(data) { return .stats(fast) }
            return .stats(try body(ServerMessage.StatsBroadcast.self))
        case .ended: return .ended(try body(ServerMessage.EndedBroadcast.self))
        case .profile, .history, .historySession, .historyUpdated, nil:
            if !parsed {
                do {
                    _ = try decoder.decode(TypeOnly.self, from: data)
                } catch {
                    throw .malformedJSON
                }
            }
            return .other(type: type)
        }
    }

    /// The `type` of a message that starts exactly `{"type":"` followed by letters and a closing
    /// quote (how the hub writes every message), else nil (then a full pass finds it).
    static func leadingType(_ data: Data) -> String? {
        let prefix: StaticString = #"{"type":""#
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
            let count = prefix.utf8CodeUnitCount
            guard raw.count > count + 1 else { return nil }
            let head = UnsafeRawBufferPointer(start: prefix.utf8Start, count: count)
            guard raw.prefix(count).elementsEqual(head) else { return nil }
            var end = count
            while end < raw.count, end - count <= 32 {
                let byte = raw[end]
                if byte == UInt8(ascii: "\"") {
                    return end > count ? String(decoding: UnsafeRawBufferPointer(rebasing: raw[count..<end]), as: UTF8.self) : nil
                }
                guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) else {
                    return nil
                }
                end += 1
            }
            return nil
        }
    }

    /// Decodes text.
    public func decode(_ text: String) throws(Failure) -> ServerMessage {
        try decode(Data(text.utf8))
    }

    /// Where decoding failed, as `field.path: problem`.
    private static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "message" : names.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "message" ? "missing field \(key.stringValue)" : "missing field \(parent).\(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "field \(path(context)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            return "field \(path(context)) has an invalid value"
        default:
            return "\(error)"
        }
    }
}
