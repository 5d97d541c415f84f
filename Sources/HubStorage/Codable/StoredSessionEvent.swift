import HubDomain

/// The JSON form of a ``HubDomain/SessionEvent`` in the journal: `kind` names the case, and
/// only that case's fields are present.
package struct StoredSessionEvent: Codable, Sendable, Equatable {
    /// The event's case; also stored in the journal's `kind` column.
    package enum Kind: String, Codable, Sendable {
        case participants, line, recast, recastAccepted, hostChanged, stats, ended

        /// The kind of `event`.
        package init(of event: SessionEvent) {
            self = switch event {
            case .participants: .participants
            case .line: .line
            case .recast: .recast
            case .recastAccepted: .recastAccepted
            case .hostChanged: .hostChanged
            case .stats: .stats
            case .ended: .ended
            }
        }
    }

    package var kind: Kind
    var change: PresenceChange?
    var participants: [ParticipantInfo]?
    var line: DialogLine?
    var recast: Recast?
    var recastId: String?
    var lineId: String?
    var userId: String?
    var ref: String?
    var stats: [ParticipantStats]?
    var summary: StoredEndSummary?

    private init(kind: Kind) { self.kind = kind }

    package init(_ event: SessionEvent) {
        switch event {
        case .participants(let change, let participants):
            self.init(kind: .participants)
            self.change = change
            self.participants = participants
        case .line(let line, let ref):
            self.init(kind: .line)
            self.line = line
            self.ref = ref
        case .recast(let recast, let ref):
            self.init(kind: .recast)
            self.recast = recast
            self.ref = ref
        case .recastAccepted(let recastId, let lineId, let userId, let ref):
            self.init(kind: .recastAccepted)
            self.recastId = recastId
            self.lineId = lineId
            self.userId = userId
            self.ref = ref
        case .hostChanged(let userId):
            self.init(kind: .hostChanged)
            self.userId = userId
        case .stats(let stats):
            self.init(kind: .stats)
            self.stats = stats
        case .ended(let summary):
            self.init(kind: .ended)
            self.summary = StoredEndSummary(summary)
        }
    }

    /// The domain value; throws when a field the kind needs is missing.
    package func event() throws -> SessionEvent {
        func required<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw StorageError("journal: \(kind.rawValue) event without \(name)") }
            return value
        }
        switch kind {
        case .participants:
            return .participants(change: try required(change, "change"),
                                 participants: try required(participants, "participants"))
        case .line:
            return .line(try required(line, "line"), ref: ref)
        case .recast:
            return .recast(try required(recast, "recast"), ref: ref)
        case .recastAccepted:
            return .recastAccepted(recastId: try required(recastId, "recastId"), lineId: try required(lineId, "lineId"),
                                   userId: try required(userId, "userId"), ref: ref)
        case .hostChanged:
            return .hostChanged(userId: try required(userId, "userId"))
        case .stats:
            return .stats(try required(stats, "stats"))
        case .ended:
            return .ended(try required(summary, "summary").summary())
        }
    }
}
