import HubDomain

extension ServerMessage {
    /// One participant in `ended`: final figures plus the outcome of saving their history.
    public struct FinalFigures: Decodable, Sendable, Equatable {
        /// The participant.
        public var userId: String
        /// Final `SessionStats`, XP included.
        public var stats: SessionStats
        /// Accepted repairs, help given and team wins.
        public var collaboration: CollaborationStats
        /// Issue type → count of recasts of this participant's lines.
        public var weakSpots: [String: Int]
        /// Whether the session went into this participant's history.
        public var history: HistoryResult

        /// The figures without the history result.
        public var figures: ParticipantStats {
            ParticipantStats(userId: userId, stats: stats, collaboration: collaboration, weakSpots: weakSpots)
        }
    }

    /// A `HistoryWriteResult` as sent: `{"status":"Success"}` or `{"status":"Error","reason":"featureLocked"}`.
    public struct HistoryResult: Decodable, Sendable, Equatable, CustomStringConvertible {
        /// `Success` or `Error`.
        public var status: String
        /// With `Error`: `featureLocked` or `networkError`.
        public var reason: String?

        /// The domain value, or nil for a status or reason this build does not know.
        public var saveResult: HistoryWriteResult? {
            switch status {
            case "Success": return .success
            case "Error": return reason.flatMap(HistorySaveFailure.init(rawValue:)).map { .error($0) }
            default: return nil
            }
        }

        /// `Success`, or `Error(featureLocked)`.
        public var description: String {
            reason.map { "\(status)(\($0))" } ?? status
        }
    }
}
