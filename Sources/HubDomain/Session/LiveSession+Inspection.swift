/// What an operator sees of one live session: a read-only copy of its state at one instant.
/// Nothing here is sent to players; the operator API (`/admin/api/sessions`) serves it.
public struct SessionInspection: Sendable, Equatable {
    /// Where the session is in its life.
    public enum Phase: String, Sendable, Codable {
        /// Taking requests.
        case live
        /// Ending: final figures and the history save are under way; no request is accepted.
        case ending
        /// Over (the hub forgets it right after).
        case ended
        /// Live, but its journal does not take changes: it holds the last ones undelivered and
        /// refuses new ones (`journal_unavailable`) until the journal works again.
        case holding
        /// Another node of the cluster owns it now (the hub forgets it right after).
        case moved
    }

    /// One participant as an operator sees them.
    public struct Participant: Sendable, Equatable {
        /// How the participant stands.
        public enum Status: String, Sendable, Codable {
            /// Holds the seat and has a connection.
            case connected
            /// Holds the seat without a connection, until ``Participant/graceDeadline``.
            case grace
            /// No longer holds a seat (left, removed, or the grace window ran out); kept because
            /// their figures still go into the end summary and history.
            case departed
        }

        /// The participant's user id.
        public var userId: String
        /// The name from their token.
        public var displayName: String
        /// The scenario role they play.
        public var roleName: String
        /// How they entered (SOLO, HOST or CLIENT).
        public var mode: SessionMode
        /// Whether they are the host now (never when departed).
        public var isHost: Bool
        /// Whether they are connected, in their grace window or gone.
        public var status: Status
        /// Epoch ms when a participant in ``Status/grace`` loses the seat; nil otherwise.
        public var graceDeadline: Int64?
        /// Epoch ms when they (last) joined.
        public var joinedAt: Int64
        /// Lines they spoke.
        public var linesSpoken: Int
        /// Recasts they made of others' lines.
        public var recastsGiven: Int
        /// Recasts others made of their lines.
        public var recastsReceived: Int
        /// Of those, the ones they accepted.
        public var recastsAccepted: Int
    }

    /// The session's id.
    public var sessionId: String
    /// The scenario's id.
    public var scenarioId: String
    /// The scenario's title.
    public var scenarioTitle: String
    /// The scenario's practised language.
    public var targetLanguage: String
    /// True for HOST/CLIENT sessions, false for SOLO.
    public var shared: Bool
    /// The join code of a shared session.
    public var joinCode: String?
    /// The current host.
    public var hostId: String?
    /// Seats at most (1 for SOLO).
    public var maxPlayers: Int
    /// Where the session is in its life.
    public var phase: Phase
    /// Epoch ms when the session was created.
    public var startedAt: Int64
    /// The instant this inspection describes (epoch ms).
    public var inspectedAt: Int64
    /// The last broadcast seq assigned.
    public var seq: Int
    /// Lines spoken so far.
    public var lineCount: Int
    /// Recasts made so far.
    public var recastCount: Int
    /// Of those, the ones accepted.
    public var acceptedRecastCount: Int
    /// Whether the scenario's goal was reached (the session is then ending).
    public var goalReached: Bool
    /// Present participants first (join order), then those who departed.
    public var participants: [Participant]
    /// Epoch ms of the latest thing that happened that the session keeps a time for: a line, a
    /// recast, a join, a disconnect; the start when nothing happened yet.
    public var lastActivityAt: Int64
    /// Lines and recasts accepted per second over the last ``rateWindowMillis``.
    public var messagesPerSecond: Double
    /// The window of ``messagesPerSecond``: 10 s, or the session's age when younger (at least 1 s).
    public var rateWindowMillis: Int64
    /// Journal writes that failed (each held its change back until a retry succeeded).
    public var failedJournalAppends: Int
    /// While ``Phase/ending``: the step the end waits for (``EndStage``), and since when
    /// (epoch ms). A session that stays on one step for long shows what holds its end up.
    public var endStage: EndStage?
    /// Epoch ms when ``endStage`` began; nil outside ``Phase/ending``.
    public var endStageSince: Int64?
    /// When the journal write in flight for this session started (epoch ms); nil when none is.
    public var journalWriteSince: Int64?
    /// Broadcasts accepted and not yet delivered: waiting for their journal write (or held back
    /// while the journal refuses them).
    public var undelivered: Int
    /// The transcript, when asked for (detail view); nil otherwise.
    public var lines: [DialogLine]?
    /// Every recast, when asked for (detail view); nil otherwise.
    public var recasts: [Recast]?

    /// Whole seconds since the session started.
    public var ageSeconds: Int64 { max(0, inspectedAt - startedAt) / 1000 }

    /// The participants holding a seat (connected or in their grace window).
    public var present: [Participant] { participants.filter { $0.status != .departed } }
}

extension LiveSession {
    /// The window over which ``SessionInspection/messagesPerSecond`` is measured.
    public static let inspectionRateWindowMillis: Int64 = 10_000

    /// A read-only copy of this session's state at `now` (epoch ms) for operators. Changes
    /// nothing: no broadcast, no journal entry, no clock reading.
    /// - Parameter includeTranscript: also copy every line and recast (the detail view).
    public func inspect(now: Int64, includeTranscript: Bool = false) -> SessionInspection {
        let present = seats.filter(\.present).map { inspected($0) }
        let departed = seats.filter { !$0.present }.map { inspected($0) }

        // Activity: lines and recasts carry their time; joins and disconnects are derived from
        // the seats (a disconnect is its grace deadline minus the window).
        var last = startedAt
        if let line = lines.last { last = max(last, line.timestamp) }
        if let recast = recasts.last { last = max(last, recast.timestamp) }
        for seat in seats {
            last = max(last, seat.joinedAt)
            if let deadline = seat.graceDeadline { last = max(last, deadline - configuration.graceWindowMillis) }
        }

        let window = min(Self.inspectionRateWindowMillis, max(1000, now - startedAt))
        let since = now - window
        var recent = 0
        for line in lines.reversed() {
            guard line.timestamp > since else { break }
            if line.timestamp <= now { recent += 1 }
        }
        for recast in recasts.reversed() {
            guard recast.timestamp > since else { break }
            if recast.timestamp <= now { recent += 1 }
        }
        let rate = (Double(recent) * 1000 / Double(window) * 100).rounded() / 100

        let phase: SessionInspection.Phase
        switch self.phase {
        case .live: phase = isHoldingChanges ? .holding : .live
        case .ending: phase = .ending
        case .ended: phase = .ended
        case .moved: phase = .moved
        }
        return SessionInspection(
            sessionId: id, scenarioId: scenario.id, scenarioTitle: scenario.title,
            targetLanguage: scenario.targetLanguage, shared: isShared, joinCode: joinCode, hostId: hostId,
            maxPlayers: maxPlayers, phase: phase, startedAt: startedAt, inspectedAt: now, seq: seq,
            lineCount: lines.count, recastCount: recasts.count,
            acceptedRecastCount: recasts.reduce(0) { $0 + ($1.accepted ? 1 : 0) }, goalReached: goalReached,
            participants: present + departed, lastActivityAt: last, messagesPerSecond: rate,
            rateWindowMillis: window, failedJournalAppends: failedJournalAppends,
            endStage: endProgress?.stage, endStageSince: endProgress?.since, journalWriteSince: journalWriteSince,
            undelivered: undeliveredCount, lines: includeTranscript ? lines : nil, recasts: includeTranscript ? recasts : nil)
    }

    /// Whether `userId` holds a seat (connected or in the grace window).
    public func holdsSeat(_ userId: String) -> Bool {
        seats.contains { $0.user.id == userId && $0.present }
    }

    private func inspected(_ seat: Seat) -> SessionInspection.Participant {
        let status: SessionInspection.Participant.Status
        if !seat.present {
            status = .departed
        } else if seat.link != nil {
            status = .connected
        } else {
            status = .grace
        }
        return SessionInspection.Participant(
            userId: seat.user.id, displayName: seat.user.displayName, roleName: seat.roleName, mode: seat.mode,
            isHost: seat.present && seat.user.id == hostId, status: status,
            graceDeadline: status == .grace ? seat.graceDeadline : nil, joinedAt: seat.joinedAt,
            linesSpoken: seat.linesSpoken, recastsGiven: seat.recastsGiven, recastsReceived: seat.recastsReceived,
            recastsAccepted: seat.recastsAccepted)
    }
}
