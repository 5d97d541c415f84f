/// What a client keeps in its ``SessionHubClientStore`` to get its seat back after the app was
/// killed and relaunched within the hub's grace window: the newest resume token, the session
/// model it had applied (its `seq` is the resume's `lastSeq`), and the lines said but not yet
/// acknowledged.
public struct SavedSeat: Codable, Sendable, Equatable {
    /// A line said and not yet acknowledged.
    public struct Line: Codable, Sendable, Equatable {
        public var clientId: String
        public var text: String
        public var translation: String

        public init(clientId: String, text: String, translation: String) {
            self.clientId = clientId
            self.text = text
            self.translation = translation
        }
    }

    public var resumeToken: String
    public var session: SessionModel
    public var unsentLines: [Line]

    public init(resumeToken: String, session: SessionModel, unsentLines: [Line]) {
        self.resumeToken = resumeToken
        self.session = session
        self.unsentLines = unsentLines
    }
}
