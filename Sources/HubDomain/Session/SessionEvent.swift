/// Everything a session broadcasts to its members. Each is numbered (`seq`) in a
/// ``SessionEnvelope``, journaled, then delivered to every member in order.
public enum SessionEvent: Sendable, Equatable {
    /// Membership or connection state changed.
    case participants(change: PresenceChange, participants: [ParticipantInfo])
    /// A line was spoken. `ref` is the `id` of the speaker's request (its acknowledgement).
    case line(DialogLine, ref: String?)
    /// A participant offered a correction. `ref` is the author's request id.
    case recast(Recast, ref: String?)
    /// The speaker accepted a correction.
    case recastAccepted(recastId: String, lineId: String, userId: String, ref: String?)
    /// The host left for good; `userId` hosts now.
    case hostChanged(userId: String)
    /// Live figures of the participants whose figures changed.
    case stats([ParticipantStats])
    /// The session is over; final figures and each participant's history result.
    case ended(SessionEndSummary)
}
