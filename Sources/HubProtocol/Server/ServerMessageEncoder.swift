import HubDomain

/// Encodes everything the hub sends as compact JSON text: session broadcasts (once per
/// broadcast, whatever the number of members) and the messages for one connection.
public enum ServerMessageEncoder {
    /// A numbered session broadcast: `{"type":…,"sessionId":…,"seq":…,…}`.
    public static func broadcast(_ envelope: SessionEnvelope) -> String {
        String(decoding: broadcastUTF8(envelope), as: UTF8.self)
    }

    /// ``broadcast(_:)`` as UTF-8 bytes, for the frame and the journal.
    public static func broadcastUTF8(_ envelope: SessionEnvelope) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType(envelope.event).rawValue)
        w.field("sessionId", envelope.sessionId)
        w.field("seq", envelope.seq)
        switch envelope.event {
        case .participants(let change, let participants):
            w.key("change")
            w.beginObject()
            w.field("userId", change.userId)
            w.field("kind", change.kind.rawValue)
            w.endObject()
            w.key("participants")
            w.beginArray()
            for participant in participants { w.write(participant) }
            w.endArray()
        case .line(let line, let ref):
            w.optionalField("ref", ref)
            w.key("line")
            w.write(line)
        case .recast(let recast, let ref):
            w.optionalField("ref", ref)
            w.key("recast")
            w.write(recast)
        case .recastAccepted(let recastId, let lineId, let userId, let ref):
            w.optionalField("ref", ref)
            w.field("recastId", recastId)
            w.field("lineId", lineId)
            w.field("userId", userId)
        case .hostChanged(let userId):
            w.field("userId", userId)
        case .stats(let figures):
            w.key("participants")
            w.beginArray()
            for figure in figures { w.write(figure) }
            w.endArray()
        case .ended(let summary):
            w.optionalField("ref", summary.ref)
            w.field("cause", summary.cause.rawValue)
            w.field("endedAt", summary.endedAt)
            w.field("durationSeconds", summary.durationSeconds)
            w.field("goalReached", summary.goalReached)
            w.key("participants")
            w.beginArray()
            for figure in summary.participants {
                w.write(figure, history: summary.history[figure.userId] ?? .error(.networkError))
            }
            w.endArray()
        }
        w.endObject()
        return w.utf8
    }

    /// The answer to `join`/`host`/`startSolo`, or to `resume`.
    public static func reply(_ reply: SessionReply) -> String {
        var w = JSONWriter()
        w.beginObject()
        switch reply {
        case .joined(let snapshot, let token, let ref):
            w.field("type", ServerMessageType.joined.rawValue)
            w.optionalField("ref", ref)
            w.field("resumeToken", token)
            w.key("session")
            w.write(snapshot)
        case .resumed(let replayed, let snapshot, let token, let ref):
            w.field("type", ServerMessageType.resumed.rawValue)
            w.optionalField("ref", ref)
            w.field("resumeToken", token)
            w.field("mode", snapshot == nil ? "replay" : "snapshot")
            w.field("replayed", replayed)
            if let snapshot {
                w.key("session")
                w.write(snapshot)
            }
        }
        w.endObject()
        return w.output
    }

    /// `welcome`: sent once a connection is authenticated. `resumable` is where the user's seat
    /// is: `resumableSessionId`, `resumableNode`, and `resumableUrl` when that node is not this one.
    public static func welcome(userId: String, displayName: String, serverTime: Int64, limits: [(String, Int)],
                               resumable: SessionPlacement?, localNode: String, ref: String? = nil) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType.welcome.rawValue)
        w.optionalField("ref", ref)
        w.field("protocolVersion", ProtocolVersion.current)
        w.field("userId", userId)
        w.field("displayName", displayName)
        w.field("serverTime", serverTime)
        w.key("limits")
        w.beginObject()
        for (name, value) in limits { w.field(name, value) }
        w.endObject()
        w.field("resumableSessionId", resumable?.sessionId)
        if let resumable, let owner = resumable.owner {
            w.field("resumableNode", owner.nodeId)
            if owner.nodeId != localNode { w.field("resumableUrl", owner.publicURL) }
        }
        w.endObject()
        return w.output
    }

    /// `error{code, message, ref}`, with `retryAfter` (seconds) when the refusal lifts in time, and
    /// `node` and `url` when the request should be sent to another node (`session_elsewhere`).
    public static func error(code: String, message: String, ref: String?, retryAfter: Int? = nil,
                             location: NodeLocation? = nil) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType.error.rawValue)
        w.optionalField("ref", ref)
        w.field("code", code)
        w.field("message", message)
        if let retryAfter { w.field("retryAfter", retryAfter) }
        if let location {
            w.field("node", location.nodeId)
            w.field("url", location.publicURL)
        }
        w.endObject()
        return w.output
    }

    /// The scenario catalogue.
    public static func scenarios(_ scenarios: [Scenario], ref: String?) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType.scenarios.rawValue)
        w.optionalField("ref", ref)
        w.key("scenarios")
        w.beginArray()
        for scenario in scenarios { w.write(scenario) }
        w.endArray()
        w.endObject()
        return w.output
    }

    /// `pong{ref, serverTime}`.
    public static func pong(ref: String?, serverTime: Int64) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType.pong.rawValue)
        w.optionalField("ref", ref)
        w.field("serverTime", serverTime)
        w.endObject()
        return w.output
    }

    /// `left{ref}`: the answer to `leave` and `end` once the connection is out of the session.
    /// Also sent unasked with a `reason` when the session lets go of the connection.
    public static func left(ref: String?, reason: String) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", ServerMessageType.left.rawValue)
        w.optionalField("ref", ref)
        w.field("reason", reason)
        w.endObject()
        return w.output
    }
}
