import Foundation
import HubDomain
import HubProtocol

/// Builds the JSON text of client messages (section 6 of `docs/PROTOCOL.md`): the counterpart of
/// ``ClientMessageDecoder``, for the bot, the load test and anything else that plays a client.
///
/// Output is compact JSON with `type` first, then the request's fields in the order of the
/// protocol's table, then `id`. Optional fields are left out when they are `nil` (the hub treats a
/// missing field and `null` alike). The `id` is always written as a JSON string; the hub answers
/// with the same text in `ref`.
///
/// ```swift
/// let text = ClientMessageEncoder.encode(.say(textNative: "Hola", textTranslated: "Hi"), id: "s1")
/// // {"type":"say","textNative":"Hola","textTranslated":"Hi","id":"s1"}
/// ```
public enum ClientMessageEncoder {
    /// The JSON text of `request`, with `id` when given.
    public static func encode(_ request: ClientRequest, id: String? = nil) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", request.type)
        switch request {
        case .hello(let protocolVersion):
            if let protocolVersion { w.field("protocolVersion", protocolVersion) }
        case .auth(let token):
            w.field("token", token)
        case .scenarios, .leave, .end, .ping, .profile:
            break
        case .updateProfile(let profile):
            w.key("profile")
            w.raw(String(decoding: profile, as: UTF8.self))
        case .history(let limit, let before):
            if let limit { w.field("limit", limit) }
            if let before { w.field("before", before) }
        case .historySession(let sessionId):
            w.field("sessionId", sessionId)
        case .startSolo(let scenarioId):
            w.field("scenarioId", scenarioId)
        case .host(let scenarioId, let maxPlayers):
            w.field("scenarioId", scenarioId)
            if let maxPlayers { w.field("maxPlayers", maxPlayers) }
        case .join(let code):
            w.field("code", code)
        case .resume(let resumeToken, let lastSeq):
            w.field("resumeToken", resumeToken)
            w.field("lastSeq", lastSeq)
        case .say(let textNative, let textTranslated, let clientId):
            w.field("textNative", textNative)
            w.field("textTranslated", textTranslated)
            w.optionalField("clientId", clientId)
        case .recast(let lineId, let correctedText, let explanation, let issueTypes):
            w.field("lineId", lineId)
            w.field("correctedText", correctedText)
            w.optionalField("explanation", explanation)
            w.field("issueTypes", strings: issueTypes.map(\.rawValue))
        case .acceptRecast(let recastId):
            w.field("recastId", recastId)
        }
        w.optionalField("id", id)
        w.endObject()
        return w.output
    }

    /// The JSON text of a whole ``ClientMessage`` (its request and id).
    public static func encode(_ message: ClientMessage) -> String {
        encode(message.request, id: message.id)
    }
}
