/// Where an ending session is in ``LiveSession/end(cause:ref:)``: the step it waits for. An
/// operator who sees a session stay `ending` learns from it what holds the end up
/// (``SessionInspection/endStage``).
public enum EndStage: String, Sendable, Codable {
    /// Waiting until every accepted change is journaled and delivered.
    case delivering
    /// Reading and recording the participants' streaks (session days).
    case streaks
    /// Writing the history: progress, word reviews and the premium participants' sessions.
    case savingHistory
    /// Dropping the session from the journal.
    case closingJournal
    /// Recording the words the participants met.
    case recordingWords
    /// Sending `ended` and letting the hub free the seats.
    case announcing
}
