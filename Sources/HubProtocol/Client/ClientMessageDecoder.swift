import Foundation
import HubDomain

/// Decodes client messages (JSON text frames) into ``ClientMessage`` values, with a precise
/// ``ProtocolError`` for anything malformed. Unknown extra fields are ignored, so clients may
/// add their own.
///
/// It does not limit the size of a message: the server refuses an oversize one from its
/// WebSocket frame header, before it is buffered (close 1009; `HubConnectionLimits.maxMessageBytes`).
public struct ClientMessageDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes one message. A plain message (``PlainEnvelopeScanner``: the usual case) is read in
    /// one pass over its bytes; any other goes through Foundation's decoder, which decides every
    /// error.
    public func decode(_ data: Data) -> Result<ClientMessage, ProtocolError> {
        data.withUnsafeBytes { decode(bytes: $0) }
    }

    /// Decodes one message from its UTF-8 bytes, as ``decode(_:)-(Data)`` does. A plain message is
    /// read where it lies; the bytes are copied only for Foundation's path.
    public func decode(bytes: UnsafeRawBufferPointer) -> Result<ClientMessage, ProtocolError> {
        guard let envelope = PlainEnvelopeScanner.scan(bytes) else { return decodeWithFoundation(Data(bytes)) }
        return interpret(envelope, Data(bytes))
    }

    /// Decodes one message with Foundation's `JSONDecoder` only: the reference path, which every
    /// message took before the fast path and which ``decode(_:)`` falls back to. Gives the same
    /// answer as ``decode(_:)``, slower; public for the tests and benchmarks that compare the two.
    public func decodeWithFoundation(_ data: Data) -> Result<ClientMessage, ProtocolError> {
        let envelope: ClientEnvelope
        do {
            envelope = try JSONDecoder().decode(ClientEnvelope.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            let field = context.codingPath.first?.stringValue ?? "?"
            return .failure(ProtocolError(.invalidField, "field \(field) has an invalid value (numbers must be integers)",
                                          ref: field == "id" ? nil : Self.bestEffortID(data)))
        } catch DecodingError.dataCorrupted {
            // Foundation reports a number it cannot convert (1.5 or 1e30 for an integer field)
            // without a path; a message that parses as an object has a bad field, not bad JSON.
            if (try? JSONSerialization.jsonObject(with: data)) is [String: Any] {
                return .failure(ProtocolError(.invalidField, "a field has an invalid value (numbers must be 64-bit integers)",
                                              ref: Self.bestEffortID(data)))
            }
            return .failure(ProtocolError(.malformedJSON, "the message is not a JSON object"))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(ProtocolError(.malformedJSON, "the message must be a JSON object"))
        } catch let DecodingError.typeMismatch(_, context) {
            let field = context.codingPath.first?.stringValue ?? "?"
            return .failure(ProtocolError(.invalidField, "field \(field) has the wrong type", ref: Self.bestEffortID(data)))
        } catch {
            return .failure(ProtocolError(.malformedJSON, "the message is not valid JSON"))
        }
        return interpret(envelope, data)
    }

    /// The message an envelope makes, or the error of its fields.
    /// `data` is the message's text, read only for a field whose JSON is passed on as it is.
    private func interpret(_ envelope: ClientEnvelope, _ data: @autoclosure () -> Data) -> Result<ClientMessage, ProtocolError> {
        let ref = envelope.id?.text
        if let ref, ref.utf8.count > Self.maxIDBytes {
            return .failure(ProtocolError(.invalidField, "id is limited to \(Self.maxIDBytes) bytes"))
        }
        guard let type = envelope.type else {
            return .failure(ProtocolError(.missingField, "missing field type", ref: ref))
        }
        func require<T>(_ value: T?, _ name: String) throws(ProtocolError) -> T {
            guard let value else { throw ProtocolError(.missingField, "\(type) needs the field \(name)", ref: ref) }
            return value
        }
        do throws(ProtocolError) {
            guard let kind = ClientMessageType(rawValue: type) else {
                throw ProtocolError(.unknownType, "unknown message type \(type.prefix(40))", ref: ref)
            }
            let request: ClientRequest
            switch kind {
            case .hello: request = .hello(protocolVersion: envelope.protocolVersion)
            case .auth: request = .auth(token: try require(envelope.token, "token"))
            case .scenarios: request = .scenarios
            case .startSolo: request = .startSolo(scenarioId: try require(envelope.scenarioId, "scenarioId"))
            case .host: request = .host(scenarioId: try require(envelope.scenarioId, "scenarioId"), maxPlayers: envelope.maxPlayers)
            case .join: request = .join(code: try require(envelope.code, "code"))
            case .resume:
                request = .resume(resumeToken: try require(envelope.resumeToken, "resumeToken"),
                                  lastSeq: try require(envelope.lastSeq, "lastSeq"))
            case .say:
                if let clientId = envelope.clientId, clientId.isEmpty || clientId.utf8.count > Self.maxIDBytes {
                    throw ProtocolError(.invalidField, "clientId must be 1 to \(Self.maxIDBytes) bytes", ref: ref)
                }
                request = .say(textNative: try require(envelope.textNative, "textNative"),
                               textTranslated: envelope.textTranslated ?? "", clientId: envelope.clientId)
            case .recast:
                let names = try require(envelope.issueTypes, "issueTypes")
                var types: [RecastIssueType] = []
                for name in names {
                    guard let type = RecastIssueType(rawValue: name) else {
                        throw ProtocolError(.invalidIssueType,
                                            "unknown issue type \(name.prefix(40)); use grammar, naturalness, vocabulary or sentence_structure",
                                            ref: ref)
                    }
                    types.append(type)
                }
                request = .recast(lineId: try require(envelope.lineId, "lineId"),
                                  correctedText: try require(envelope.correctedText, "correctedText"),
                                  explanation: envelope.explanation, issueTypes: types)
            case .acceptRecast: request = .acceptRecast(recastId: try require(envelope.recastId, "recastId"))
            case .leave: request = .leave
            case .end: request = .end
            case .ping: request = .ping
            case .profile: request = .profile
            case .updateProfile:
                _ = try require(envelope.profile, "profile")
                request = .updateProfile(profile: try Self.object(named: "profile", in: data(), ref: ref))
            case .history: request = .history(limit: envelope.limit, before: envelope.before)
            case .historySession: request = .historySession(sessionId: try require(envelope.sessionId, "sessionId"))
            }
            return .success(ClientMessage(id: ref, request: request))
        } catch {
            return .failure(error)
        }
    }

    /// Decodes UTF-8 text.
    public func decode(_ text: String) -> Result<ClientMessage, ProtocolError> {
        var text = text
        return text.withUTF8 { decode(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The JSON text of the object field `name` of a message known to have it.
    private static func object(named name: String, in data: Data, ref: String?) throws(ProtocolError) -> Data {
        guard let message = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let field = message[name],
              let json = try? JSONSerialization.data(withJSONObject: field) else {
            throw ProtocolError(.invalidField, "field \(name) must be a JSON object", ref: ref)
        }
        return json
    }

    /// The `id` of a message whose other fields failed, so the error can still carry `ref`; nil
    /// when it is over the 64-byte limit of ids (such an id is never echoed).
    private static func bestEffortID(_ data: Data) -> String? {
        struct OnlyID: Decodable { var id: ClientEnvelope.RequestID? }
        guard let id = (try? JSONDecoder().decode(OnlyID.self, from: data))?.id?.text,
              id.utf8.count <= maxIDBytes else { return nil }
        return id
    }

    /// The longest `id` accepted, and echoed as `ref`, in bytes.
    static let maxIDBytes = 64
}
