import HubDomain

/// The JSON form of a ``HubDomain/EndedParticipant`` (new words sorted, for stable bytes).
struct StoredEndedParticipant: Codable, Sendable, Equatable {
    var userId: String
    var displayName: String
    var roleName: String
    var figures: ParticipantStats
    var newWords: [String]

    init(_ participant: EndedParticipant) {
        userId = participant.userId
        displayName = participant.displayName
        roleName = participant.roleName
        figures = participant.figures
        newWords = participant.newWords.sorted()
    }

    /// The domain value.
    var participant: EndedParticipant {
        EndedParticipant(userId: userId, displayName: displayName, roleName: roleName, figures: figures,
                         newWords: Set(newWords))
    }
}
