/// A message for one participant only, sent through its ``ParticipantLink``.
public enum SessionReply: Sendable, Equatable {
    /// The answer to `startSolo`, `host` or `join`: the state to start from and the resume token.
    case joined(SessionSnapshot, resumeToken: String, ref: String?)
    /// The answer to `resume`: `replayed` broadcasts follow (seq > the client's lastSeq), or, when
    /// those are no longer kept, `snapshot` carries the full state to start over from.
    case resumed(replayed: Int, snapshot: SessionSnapshot?, resumeToken: String, ref: String?)
}
