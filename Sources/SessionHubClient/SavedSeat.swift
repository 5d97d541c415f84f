/// What a client keeps in its ``SessionHubClientStore`` to get its seat back after the app was
/// killed and relaunched within the hub's grace window: the newest resume token, the session
/// model it had applied (its `seq` is the resume's `lastSeq`), and the lines said but not yet
/// acknowledged.
public struct SavedSeat: Codable, Sendable, Equatable {
    /// A line said and not yet acknowledged.
    public struct Line: Codable, Sendable, Equatable {
        /// The `clientId` the line is sent with; the hub records a line with the same one only once.
        public var clientId: String
        /// The line in the practised language (the `say`'s `textNative`).
        public var text: String
        /// Its translation (`textTranslated`), possibly empty.
        public var translation: String

        /// Creates a line.
        public init(clientId: String, text: String, translation: String) {
            self.clientId = clientId
            self.text = text
            self.translation = translation
        }
    }

    /// The newest resume token the hub gave (in `joined` or `resumed`).
    public var resumeToken: String
    /// The session model as last applied; its `seq` is the resume's `lastSeq`.
    public var session: SessionModel
    /// The lines said and not yet acknowledged, in the order said.
    public var unsentLines: [Line]

    /// Creates a saved seat.
    public init(resumeToken: String, session: SessionModel, unsentLines: [Line]) {
        self.resumeToken = resumeToken
        self.session = session
        self.unsentLines = unsentLines
    }
}
