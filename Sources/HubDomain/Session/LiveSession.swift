/// One live session: the only owner of its state. Every request is validated here, every
/// accepted change is numbered, journaled and then broadcast to the members in `seq` order,
/// encoded once for all of them.
///
/// Time comes from the injected clock; grace windows advance in ``tick(now:)``, which the hub
/// calls about once a second (and tests call directly), and so do the live stats that no change
/// carried (``statsClockSpacing``).
public actor LiveSession {
    /// The least time between two live `stats` broadcasts of a session, in ms. The figures that
    /// changed go out with the first `line`, `recast` or `recastAccepted` after that time, in the
    /// same journal write and the same socket write as that change; when no change comes before
    /// ``statsClockSpacing``, the session clock's next tick sends them. The clock ticks every
    /// 1,000 ms: the spacing is a little shorter so that a tick's jitter never makes it skip a
    /// second.
    public static let statsSpacing: Int64 = 900

    /// The least time between two live `stats` broadcasts when the session clock sends the
    /// second one, in ms: one clock period more than ``statsSpacing``. Between the two a change
    /// still carries the figures (one journal write, one socket write per member, where a
    /// separate `stats` would cost each member a write of its own); only a session in which no
    /// change comes for that long gets them from the clock.
    public static let statsClockSpacing: Int64 = statsSpacing + 900

    /// Session id (32 hex digits).
    public nonisolated let id: String
    /// The scenario played.
    public nonisolated let scenario: Scenario
    /// The join code of a shared session; nil for SOLO.
    public nonisolated let joinCode: String?
    /// Epoch ms when it was created.
    public nonisolated let startedAt: Int64

    let maxPlayers: Int
    /// Where the session runs (``HubPorts/executors``): a member's link may settle near it
    /// (``ParticipantLink/settle(near:)``).
    public nonisolated let executor: any SerialExecutor
    let configuration: HubConfiguration
    let ports: HubPorts
    private let notify: @Sendable (SessionNotice) async -> Void

    enum Phase {
        case live, ending, ended
        /// Another node owns the session now (the journal fenced this one); nothing more happens here.
        case moved
    }
    var phase = Phase.live
    var seats: [Seat] = []
    var hostId: String?
    var lines: [DialogLine] = []
    var lineIndex: [String: Int] = [:]
    var recasts: [Recast] = []
    var recastIndex: [String: Int] = [:]
    var sessionWords = SessionWords()
    var statsDirty = Set<String>()
    /// When the live figures last went out (``statsSpacing``); before the first `stats`, when the
    /// session started.
    var lastStatsAt: Int64
    var goalReached = false

    var seq = 0
    var lastDelivered = 0
    private struct Pending {
        var seq: Int
        var encoded: any EncodedEvent
        var durable = false
    }
    private var outbox: [Pending] = []
    /// Whether the journal takes this session's changes (see ``JournalHealth``).
    var journalHealth = JournalHealth.healthy
    /// An end that had to wait for the journal: run once it works again.
    private var deferredEnd: EndCause?
    /// Calls of ``end(cause:ref:)`` waiting for the end in progress.
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// Lines by (speaker, `clientId`), so a line sent again is recognised.
    var clientLines: [ClientLineKey: (lineId: String, seq: Int)] = [:]
    /// Requests waiting for their broadcast to be durable (true) or refused by the journal (false).
    private var acknowledgementWaiters: [(seq: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    var replay: [(seq: Int, encoded: any EncodedEvent)] = []
    /// Whether the journal has this session's header.
    var headerJournaled = false
    private var journalFailures = 0
    private var endSummary: SessionEndSummary?
    /// The step an end in progress waits for, and since when (epoch ms); nil unless ending.
    private(set) var endProgress: (stage: EndStage, since: Int64)?
    /// When the journal write in flight started (epoch ms); nil when none is.
    private(set) var journalWriteSince: Int64?

    /// Creates a session; the hub adds the first participant with ``join(_:link:mode:ref:)``.
    /// - Parameters:
    ///   - startedAt: epoch ms; the clock's now when nil (a session rebuilt after a restart keeps
    ///     its original start).
    ///   - executor: where the session runs; when nil, ``HubPorts/executors`` picks one.
    public init(id: String, scenario: Scenario, joinCode: String?, maxPlayers: Int,
                configuration: HubConfiguration, ports: HubPorts, startedAt: Int64? = nil,
                executor: (any SerialExecutor)? = nil,
                notify: @escaping @Sendable (SessionNotice) async -> Void) {
        self.executor = executor ?? ports.executors.executor(near: nil)
        self.id = id
        self.scenario = scenario
        self.joinCode = joinCode
        self.maxPlayers = maxPlayers
        self.configuration = configuration
        self.ports = ports
        self.notify = notify
        self.startedAt = startedAt ?? ports.clock.now()
        lastStatsAt = self.startedAt
    }

    /// Whether others can join (HOST/CLIENT) rather than SOLO.
    public nonisolated var isShared: Bool { joinCode != nil }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    // MARK: Membership

    /// Seats `user` (or gives back the seat they left), replies `joined` through `link`, and
    /// tells the others. Returns the resume token.
    public func join(_ user: HubUser, link: any ParticipantLink, mode: SessionMode, ref: String?) async throws(HubError) -> String {
        let known = await ports.learners.knownWords(userId: user.id, language: scenario.targetLanguage)
        try requireLive()
        try requireJournal()
        let now = ports.clock.now()
        let token = ports.resumeTokens.issue(sessionId: id, userId: user.id)
        let index: Int
        if let existing = seats.firstIndex(where: { $0.user.id == user.id }) {
            if seats[existing].present { throw HubError(.alreadyInSession, "you already have a seat in this session; resume instead") }
            guard presentCount < maxPlayers else { throw HubError(.sessionFull, "the session is full (\(maxPlayers) players)") }
            seats[existing].present = true
            seats[existing].link = link
            seats[existing].graceDeadline = nil
            seats[existing].user = user
            seats[existing].resumeToken = token
            seats[existing].presentedResumeToken = nil
            index = existing
        } else {
            guard presentCount < maxPlayers else { throw HubError(.sessionFull, "the session is full (\(maxPlayers) players)") }
            let seat = Seat(user: user, roleName: nextRole(), mode: mode, joinedAt: now,
                            resumeToken: token, link: link, knownWords: [])
            seats.append(seat)
            seats[seats.count - 1].know(known, amid: sessionWords)
            index = seats.count - 1
        }
        if hostId == nil { hostId = user.id }
        let seq = enqueue(.participants(change: PresenceChange(userId: user.id, kind: .joined), participants: participantInfos()))
        seats[index].deliverFrom = seq + 1
        link.reply(.joined(snapshot(for: index, seq: seq), resumeToken: token, ref: ref))
        statsDirty.insert(user.id)
        await commit()
        return token
    }

    /// Puts a returning participant back on a new connection. Replays the broadcasts after
    /// `lastSeq` (or sends a snapshot when they are no longer kept) and tells the others.
    /// Returns the new resume token.
    public func resume(userId: String, resumeToken: String, lastSeq: Int, link: any ParticipantLink, ref: String?) async throws(HubError) -> String {
        try requireLive()
        guard let index = seats.firstIndex(where: { $0.user.id == userId && $0.present }),
              accepts(resumeToken, at: index) else {
            throw HubError(.invalidResumeToken, "the resume token is not valid for this user (the seat may have expired)")
        }
        guard lastSeq >= 0, lastSeq <= seq else {
            throw HubError(.invalidLastSeq, "lastSeq must be between 0 and \(seq)")
        }
        if let old = seats[index].link, old.linkId != link.linkId { old.detach(.replaced) }
        let wasConnected = seats[index].link != nil
        seats[index].link = link
        seats[index].graceDeadline = nil
        let token = ports.resumeTokens.issue(sessionId: id, userId: userId)
        seats[index].resumeToken = token
        seats[index].presentedResumeToken = resumeToken
        let oldestKept = replay.first?.seq ?? (lastDelivered + 1)
        if lastSeq + 1 >= oldestKept {
            let missed = replay.filter { $0.seq > lastSeq }
            link.reply(.resumed(replayed: missed.count, snapshot: nil, resumeToken: token, ref: ref))
            for event in missed { link.deliver(event.encoded) }
            seats[index].deliverFrom = lastDelivered + 1
        } else {
            link.reply(.resumed(replayed: 0, snapshot: snapshot(for: index, seq: lastDelivered), resumeToken: token, ref: ref))
            seats[index].deliverFrom = lastDelivered + 1
        }
        if !wasConnected {
            enqueue(.participants(change: PresenceChange(userId: userId, kind: .reconnected), participants: participantInfos()))
            await commit()
        }
        return token
    }

    /// The connection `linkId` of `userId` is gone: hold the seat for the grace window.
    public func disconnected(userId: String, linkId: UInt64) async {
        guard phase == .live, let index = seats.firstIndex(where: { $0.user.id == userId && $0.present }),
              seats[index].link?.linkId == linkId else { return }
        seats[index].link = nil
        seats[index].graceDeadline = ports.clock.now() + configuration.graceWindowMillis
        enqueue(.participants(change: PresenceChange(userId: userId, kind: .disconnected), participants: participantInfos()))
        await commit()
    }

    /// The participant leaves for good. The host's leaving hands hosting on; the last one's
    /// leaving ends the session.
    public func leave(userId: String) async throws(HubError) {
        try requireLive()
        let index = try seatIndex(of: userId)
        await release(index, kind: .left, detach: .left)
    }

    /// An operator removes a participant.
    public func remove(userId: String) async throws(HubError) {
        try requireLive()
        let index = try seatIndex(of: userId)
        await release(index, kind: .removed, detach: .removed)
    }

    // MARK: Dialog

    /// Accepts a line from `userId`, then broadcasts it (the speaker's copy is the acknowledgement).
    /// Returns once the line is durable and delivered.
    /// - Parameter clientId: the client's own id for the line; a second `say` with the same id from
    ///   the same speaker is refused with ``HubError/Code/duplicateLine`` instead of recorded twice.
    /// - Throws: ``HubError/Code/journalUnavailable`` when the journal did not take the line: it
    ///   was not acknowledged (the session holds it until the journal works again or it moves).
    public func say(userId: String, textNative: String, textTranslated: String, clientId: String? = nil,
                    ref: String?) async throws(HubError) {
        try requireLive()
        let index = try seatIndex(of: userId)
        try requireJournal()
        if let clientId, let earlier = clientLines[ClientLineKey(speakerId: userId, clientId: clientId)] {
            throw HubError(.duplicateLine, "clientId \(clientId) was already accepted as line \(earlier.lineId) (seq \(earlier.seq))")
        }
        let native = try configuration.validatedText(textNative, field: "textNative")
        let translated = try configuration.validatedText(textTranslated, field: "textTranslated", allowEmpty: true)
        guard !goalReached else { throw HubError(.sessionEnded, "the scenario's goal was reached; the session is ending") }
        guard lines.count < configuration.maxLinesPerSession else {
            throw HubError(.sessionLimit, "the session holds its maximum of \(configuration.maxLinesPerSession) lines")
        }
        let line = DialogLine(id: "l\(lines.count + 1)", speakerId: userId, roleName: seats[index].roleName,
                              textNative: native, textTranslated: translated, timestamp: ports.clock.now(),
                              clientId: clientId)
        let reachedNow = record(line)
        let seq = enqueue(.line(line, ref: ref))
        if let clientId { clientLines[ClientLineKey(speakerId: userId, clientId: clientId)] = (line.id, seq) }
        enqueueStatsIfDue(now: line.timestamp)
        let acknowledged = await acknowledgement(of: seq)
        if reachedNow { await end(cause: .goalReached) }
        if !acknowledged { throw journalRefusal() }
    }

    /// Accepts a correction of someone else's line, then broadcasts it.
    public func recast(userId: String, lineId: String, correctedText: String, explanation: String?,
                       issueTypes: [RecastIssueType], ref: String?) async throws(HubError) {
        try requireLive()
        _ = try seatIndex(of: userId)
        try requireJournal()
        guard let lineAt = lineIndex[lineId] else { throw HubError(.unknownLine, "no line \(lineId.prefix(64)) in this session") }
        let line = lines[lineAt]
        guard line.speakerId != userId else { throw HubError(.notAllowed, "you cannot recast your own line") }
        let corrected = try configuration.validatedText(correctedText, field: "correctedText")
        var note: String?
        if let explanation, !explanation.isEmpty {
            guard explanation.count <= configuration.maxExplanationLength else {
                throw HubError(.textTooLong, "explanation is longer than \(configuration.maxExplanationLength) characters")
            }
            note = explanation
        }
        let types = Array(Set(issueTypes)).sorted()
        guard !types.isEmpty else { throw HubError(.missingField, "issueTypes must name at least one of grammar, naturalness, vocabulary, sentence_structure") }
        guard recasts.count < configuration.maxRecastsPerSession else {
            throw HubError(.sessionLimit, "the session holds its maximum of \(configuration.maxRecastsPerSession) recasts")
        }
        let recast = Recast(id: "r\(recasts.count + 1)", lineId: lineId, authorId: userId, speakerId: line.speakerId,
                            correctedText: corrected, explanation: note, issueTypes: types, timestamp: ports.clock.now())
        record(recast)
        let seq = enqueue(.recast(recast, ref: ref))
        enqueueStatsIfDue(now: recast.timestamp)
        if !(await acknowledgement(of: seq)) { throw journalRefusal() }
    }

    /// The speaker of the corrected line accepts a recast; broadcast to all.
    public func acceptRecast(userId: String, recastId: String, ref: String?) async throws(HubError) {
        try requireLive()
        _ = try seatIndex(of: userId)
        try requireJournal()
        guard let at = recastIndex[recastId] else { throw HubError(.unknownRecast, "no recast \(recastId.prefix(64)) in this session") }
        guard recasts[at].speakerId == userId else { throw HubError(.notAllowed, "only the speaker of the line can accept its recast") }
        guard !recasts[at].accepted else { throw HubError(.alreadyAccepted, "recast \(recastId) was already accepted") }
        recordAcceptance(of: at)
        let seq = enqueue(.recastAccepted(recastId: recastId, lineId: recasts[at].lineId, userId: userId, ref: ref))
        enqueueStatsIfDue(now: ports.clock.now())
        if !(await acknowledgement(of: seq)) { throw journalRefusal() }
    }

    // MARK: Ending and time

    /// The host (or solo player) ends the session.
    public func end(by userId: String, ref: String? = nil) async throws(HubError) {
        try requireLive()
        _ = try seatIndex(of: userId)
        guard hostId == userId else { throw HubError(.notAllowed, "only the host can end the session") }
        try requireJournal()
        await end(cause: .hostEnded, ref: ref)
        if phase == .live { throw journalRefusal() }
    }

    /// Ends the session: final figures and XP, the history save, then `ended` to everyone and
    /// the links let go. If it is already ending, waits for that end to finish (so a server
    /// that ends every session before stopping does not stop under one). While the journal
    /// holds changes the end waits (the session stays live) and happens once the journal works
    /// again; a session that moved to another node is not ended here.
    public func end(cause: EndCause, ref: String? = nil) async {
        guard phase == .live else {
            if phase == .ending {
                await withCheckedContinuation { waiter in
                    // Decided again here: see `acknowledgement(of:)`.
                    if phase == .ending { endWaiters.append(waiter) } else { waiter.resume() }
                }
            }
            return
        }
        guard journalHealth == .healthy else {
            deferredEnd = deferredEnd ?? cause
            return
        }
        phase = .ending
        reachEndStage(.delivering)
        // Everything accepted is journaled (and delivered) before history is written, so a
        // storage that drops the journal with the history write leaves nothing behind.
        guard await waitUntilDelivered() else {
            // The journal failed meanwhile (or fenced this node): nothing may be sealed now.
            if phase == .ending {
                phase = .live
                deferredEnd = deferredEnd ?? cause
            }
            endProgress = nil
            answerEndWaiters()
            return
        }
        let endedAt = ports.clock.now()
        var finals: [ParticipantStats] = []
        var participants: [EndedParticipant] = []
        reachEndStage(.streaks)
        let streaks = await ports.learners.streaks(userIds: seats.map(\.user.id), endingAt: endedAt)
        // After each step: a session let go meanwhile (another node owns it now) ends there, not here.
        guard phase == .ending else { return }
        for seat in seats {
            let streak = streaks[seat.user.id] ?? 1
            let figures = stats(for: seat, endedAt: endedAt, streak: streak)
            finals.append(figures)
            participants.append(EndedParticipant(userId: seat.user.id, displayName: seat.user.displayName,
                                                 roleName: seat.roleName, figures: figures,
                                                 newWords: sessionWords.unknown(to: seat.knownWords)))
        }
        let ended = EndedSession(sessionId: id, scenarioId: scenario.id, scenarioTitle: scenario.title,
                                 targetLanguage: scenario.targetLanguage, multiplayer: isShared,
                                 startedAt: startedAt, endedAt: endedAt, cause: cause, goalReached: goalReached,
                                 lines: lines, recasts: recasts, participants: participants, words: sessionWords)
        reachEndStage(.savingHistory)
        let results = await ports.history.save(ended)
        guard phase == .ending else { return }
        // Keep the journal when the history could not even be sealed for a retry: rebuilding
        // the session after a restart is then the only way its players' work survives.
        if !results.values.contains(.error(.networkError)) {
            reachEndStage(.closingJournal)
            await ports.journal.closed(sessionId: id)
            guard phase == .ending else { return }
        }
        // A writer that keeps the new words with the history has recorded them already.
        var learned: [String: Set<String>] = [:]
        if !ports.history.recordsNewWords {
            for participant in participants where !participant.newWords.isEmpty {
                learned[participant.userId, default: []].formUnion(participant.newWords)
            }
        }
        reachEndStage(.recordingWords)
        if !learned.isEmpty {
            await ports.learners.recordWords(learned, language: scenario.targetLanguage)
            guard phase == .ending else { return }
        }
        let summary = SessionEndSummary(cause: cause, endedAt: endedAt, durationSeconds: ended.durationSeconds,
                                        goalReached: goalReached, participants: finals, history: results, ref: ref)
        endSummary = summary
        reachEndStage(.announcing)
        enqueue(.ended(summary))
        // `ended` is not journaled: it is durable at once, so this delivers everything.
        _ = await waitUntilDelivered()
        guard phase == .ending else { return }
        phase = .ended
        endProgress = nil
        answerEndWaiters()
        // The hub frees the seats before anyone hears `left`: a client that hosts or joins again
        // as soon as it reads `left{ended}` must not be told it is still in a session.
        await notify(.ended(userIds: seats.map(\.user.id)))
        for index in seats.indices {
            seats[index].link?.detach(.ended)
            seats[index].link = nil
        }
    }

    /// Notes the step the end in progress waits for now.
    private func reachEndStage(_ stage: EndStage) {
        endProgress = (stage, ports.clock.now())
    }

    /// Advances time: releases seats whose grace window passed (ending the session when nobody
    /// is left) and broadcasts the live figures that changed since the last tick.
    public func tick(now: Int64) async {
        if case .holding = journalHealth {
            // Try the held change again; until the journal takes it nothing else moves on.
            await commit()
            guard journalHealth == .healthy else { return }
        }
        guard phase == .live else { return }
        if let cause = deferredEnd {
            deferredEnd = nil
            await end(cause: cause)
            return
        }
        for index in seats.indices where seats[index].present {
            if let deadline = seats[index].graceDeadline, deadline <= now {
                await release(index, kind: .expired, detach: nil)
                if phase != .live { return }
            }
        }
        if enqueueStatsIfDue(now: now, spacing: Self.statsClockSpacing) { await commit() }
    }

    /// Queues a `stats` broadcast of the figures that changed since the last one, if any did and
    /// the last one went out at least `spacing` ago (``statsSpacing`` behind a change,
    /// ``statsClockSpacing`` on the clock). The caller commits it (with the change it follows,
    /// if any). Returns whether it queued one.
    @discardableResult
    private func enqueueStatsIfDue(now: Int64, spacing: Int64 = statsSpacing) -> Bool {
        guard !statsDirty.isEmpty else { return false }
        guard now - lastStatsAt >= spacing else { return false }
        let changed = seats.indices.filter { statsDirty.contains(seats[$0].user.id) }
            .map { stats(for: seats[$0], endedAt: nil, streak: 1) }
        statsDirty.removeAll()
        guard !changed.isEmpty else { return false }
        lastStatsAt = now
        enqueue(.stats(changed))
        return true
    }

    // MARK: Reading

    /// The summary sent with `ended`, once the session is over.
    public var summary: SessionEndSummary? { endSummary }

    /// Whether the session is over (or ending).
    public var isOver: Bool { phase != .live }

    /// The members as everyone sees them.
    public func participants() -> [ParticipantInfo] { participantInfos() }

    /// The transcript so far.
    public func transcript() -> [DialogLine] { lines }

    /// All recasts so far.
    public func allRecasts() -> [Recast] { recasts }

    /// The last seq assigned.
    public var currentSeq: Int { seq }

    /// Journal writes that failed (each held its change back; retries count again).
    public var failedJournalAppends: Int { journalFailures }

    /// Whether the session holds changes its journal did not take yet (it refuses new ones).
    public var isHoldingChanges: Bool {
        if case .holding = journalHealth { return true }
        return false
    }

    /// Broadcasts accepted and not yet delivered (waiting for, or held back by, the journal).
    var undeliveredCount: Int { outbox.count }

    /// Whether another node owns the session now.
    public var hasMoved: Bool { phase == .moved }

    // MARK: Internals

    var presentCount: Int { seats.reduce(0) { $0 + ($1.present ? 1 : 0) } }

    private func requireLive() throws(HubError) {
        if phase == .moved { throw journalRefusal() }
        guard phase == .live else { throw HubError(.sessionEnded, "the session has ended") }
    }

    /// Refuses a new change while the journal holds earlier ones.
    private func requireJournal() throws(HubError) {
        if case .holding = journalHealth { throw journalRefusal() }
    }

    /// Why a change was not acknowledged: the session moved, or its journal holds changes.
    private func journalRefusal() -> HubError {
        if phase == .moved {
            return HubError(.sessionMoved, "the session is now hosted by another node; reconnect and resume")
        }
        return HubError(.journalUnavailable,
                 "the session's journal is not taking changes right now; nothing was acknowledged, try again shortly",
                 // The session writes the held change again on each tick, about once a second.
                 retryAfterSeconds: 1)
    }

    private func seatIndex(of userId: String) throws(HubError) -> Int {
        guard let index = seats.firstIndex(where: { $0.user.id == userId && $0.present }) else {
            throw HubError(.notInSession, "you are not a participant of this session")
        }
        return index
    }

    /// The role held by the fewest present players, ties going to scenario order.
    private func nextRole() -> String {
        var holders: [String: Int] = [:]
        for seat in seats where seat.present { holders[seat.roleName, default: 0] += 1 }
        let least = scenario.roles.min { (holders[$0.name] ?? 0) < (holders[$1.name] ?? 0) }
        return least?.name ?? scenario.role(forSeat: seats.count)
    }

    private func participantInfos() -> [ParticipantInfo] {
        seats.filter(\.present).map(info(of:))
    }

    private func info(of seat: Seat) -> ParticipantInfo {
        ParticipantInfo(userId: seat.user.id, displayName: seat.user.displayName, roleName: seat.roleName,
                        mode: seat.mode, isHost: seat.user.id == hostId, connected: seat.link != nil)
    }

    private func snapshot(for index: Int, seq: Int) -> SessionSnapshot {
        SessionSnapshot(sessionId: id, scenario: scenario, joinCode: joinCode, hostId: hostId, maxPlayers: maxPlayers,
                        startedAt: startedAt, participants: participantInfos(), lines: lines, recasts: recasts,
                        seq: seq, you: info(of: seats[index]))
    }

    private func stats(for seat: Seat, endedAt: Int64?, streak: Int) -> ParticipantStats {
        let newWords = seat.newVocabulary
        let teamWin = isShared && goalReached
        let input = XPInput(linesSpoken: seat.linesSpoken, newWords: newWords, recastsReceived: seat.recastsReceived,
                            recastsAccepted: seat.recastsAccepted, recastsGivenAccepted: seat.recastsGivenAccepted,
                            multiplayer: isShared, goalReached: goalReached, streakDays: streak)
        let xp = XPCalculator.breakdown(for: input)
        let stats = SessionStats(sessionId: id, startedAt: seat.joinedAt, endedAt: endedAt, mode: seat.mode,
                                 scenarioId: scenario.id, linesSpoken: seat.linesSpoken,
                                 wordsEncountered: sessionWords.count, newVocabulary: newWords,
                                 errorsDetected: seat.recastsReceived, errorsCorrected: seat.recastsAccepted,
                                 xpEarned: xp.total, xpBreakdown: xp)
        let collaboration = CollaborationStats(successfulRepairs: seat.recastsAccepted,
                                               helpGiven: seat.recastsGivenAccepted, teamWins: teamWin ? 1 : 0)
        var weakSpots: [String: Int] = [:]
        for (type, count) in seat.weakSpots { weakSpots[type.rawValue] = count }
        return ParticipantStats(userId: seat.user.id, stats: stats, collaboration: collaboration, weakSpots: weakSpots)
    }

    /// Takes a seat away (left, removed, expired): tells the others, hands hosting on, and ends
    /// the session when nobody is left.
    private func release(_ index: Int, kind: PresenceChange.Kind, detach reason: DetachReason?) async {
        let userId = seats[index].user.id
        seats[index].present = false
        seats[index].graceDeadline = nil
        if let reason { seats[index].link?.detach(reason) }
        seats[index].link = nil
        enqueue(.participants(change: PresenceChange(userId: userId, kind: kind), participants: participantInfos()))
        if hostId == userId {
            let next = seats.first(where: { $0.present && $0.link != nil }) ?? seats.first(where: \.present)
            hostId = next?.user.id
            if let next { enqueue(.hostChanged(userId: next.user.id)) }
        }
        await commit()
        await notify(.departed(userId: userId))
        if presentCount == 0 { await end(cause: .abandoned) }
    }

    /// Numbers and encodes a broadcast and queues it behind its journal append.
    @discardableResult
    private func enqueue(_ event: SessionEvent) -> Int {
        seq += 1
        let encoded = ports.encoder.encode(SessionEnvelope(sessionId: id, seq: seq, event: event))
        if case .ended = event {
            // The end lives on in history, not in the journal.
            outbox.append(Pending(seq: seq, encoded: encoded, durable: true))
            drain()
        } else {
            outbox.append(Pending(seq: seq, encoded: encoded))
            pendingEntries.append(JournalEntry(sessionId: id, seq: seq, timestamp: ports.clock.now(), event: event,
                                               text: encoded.journalText))
        }
        return seq
    }

    private var pendingEntries: [JournalEntry] = []
    private var journalWriterActive = false
    private var drainWaiters: [CheckedContinuation<Bool, Never>] = []

    /// Writes queued journal entries strictly in seq order, one write in flight per session
    /// (taking every entry queued by then), delivering each broadcast once its entry is durable. A caller that finds a write in
    /// flight returns at once: the running writer takes its entry too.
    ///
    /// A change whose write failed is never delivered: the session holds it and everything
    /// behind it (``JournalHealth/holding(since:reason:)``), refuses new changes, and writes it
    /// again on each ``tick(now:)`` until the journal takes it. A write refused by fencing means
    /// another node owns the session: it lets everyone go (``relinquish(_:)``).
    private func commit() async {
        guard !journalWriterActive, phase != .moved else { return }
        journalWriterActive = true
        defer { journalWriterActive = false }
        while !pendingEntries.isEmpty {
            // Everything queued so far goes in one write: entries queued while a write is in
            // flight wait one round trip, not one each.
            let batch = pendingEntries
            do {
                journalWriteSince = ports.clock.now()
                if !headerJournaled {
                    try await ports.journal.opened(header)
                    headerJournaled = true
                }
                if batch.count == 1 {
                    try await ports.journal.append(batch[0])
                } else {
                    try await ports.journal.append(contentsOf: batch)
                }
                journalWriteSince = nil
            } catch {
                journalWriteSince = nil
                guard phase != .moved else { return }
                journalFailed(error)
                return
            }
            // The session may have been let go while the write was in flight.
            guard phase != .moved else { return }
            pendingEntries.removeFirst(batch.count)
            journalHealth = .healthy
            let last = batch[batch.count - 1].seq
            for index in outbox.indices where outbox[index].seq <= last { outbox[index].durable = true }
            drain()
        }
    }

    /// Waits until broadcast `seq` was delivered (true), or the journal refused it (false).
    ///
    /// Whether to wait is decided inside the continuation's closure, in the same step as the
    /// waiter is registered: Swift may run that closure as a later job of the session
    /// (swiftlang/swift#85668: it does when the calling task prefers a task executor, as the
    /// connection workers do), after other work queued meanwhile — the journal write completing
    /// and delivering `seq`, say. A waiter registered on the strength of an earlier check would then
    /// wait for a delivery that already happened, for ever.
    private func acknowledgement(of seq: Int) async -> Bool {
        await commit()
        if let answer = acknowledgementAnswer(for: seq) { return answer }
        return await withCheckedContinuation { waiter in
            if let answer = acknowledgementAnswer(for: seq) {
                waiter.resume(returning: answer)
            } else {
                acknowledgementWaiters.append((seq, waiter))
            }
        }
    }

    /// Whether broadcast `seq` was delivered (true) or will not be (false); nil while it may be.
    private func acknowledgementAnswer(for seq: Int) -> Bool? {
        if seq <= lastDelivered { return true }
        guard journalHealth == .healthy, phase != .moved else { return false }
        return nil
    }

    private func journalFailed(_ error: any Error) {
        journalFailures += 1
        if case JournalFailure.fenced? = error as? JournalFailure {
            relinquish(.moved)
            return
        }
        if case .holding = journalHealth { return }
        journalHealth = .holding(since: ports.clock.now(), reason: "\(error)")
        answerWaiters(delivered: false)
    }

    /// Lets go of the session without ending it, because another node owns it now (the journal
    /// fenced this one, or the cluster declared this node dead: ``DetachReason/moved``) or this
    /// node handed it over (``DetachReason/handedOver``): forgets what is not durable, lets every
    /// member go with `reason` (so they resume on the owner) and tells the hub. No history is
    /// written and the journal is not closed: the session lives on at its new owner.
    public func relinquish(_ reason: DetachReason) {
        guard phase != .moved else { return }
        phase = .moved
        endProgress = nil
        journalHealth = .fenced
        pendingEntries.removeAll()
        outbox.removeAll()
        deferredEnd = nil
        answerWaiters(delivered: false)
        answerEndWaiters()
        let userIds = seats.filter(\.present).map(\.user.id)
        for index in seats.indices {
            seats[index].link?.detach(reason)
            seats[index].link = nil
        }
        let notify = self.notify
        Task { await notify(.moved(userIds: userIds)) }
    }

    /// Lets the callers of ``end(cause:ref:)`` that waited for an end in progress go on.
    private func answerEndWaiters() {
        let waiters = endWaiters
        endWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Answers every waiting request and `end` (after a failure, with false).
    private func answerWaiters(delivered: Bool) {
        let acknowledgements = acknowledgementWaiters
        acknowledgementWaiters.removeAll()
        for waiter in acknowledgements { waiter.continuation.resume(returning: delivered) }
        let drains = drainWaiters
        drainWaiters.removeAll()
        for waiter in drains { waiter.resume(returning: delivered) }
    }

    /// Returns true once every queued broadcast was delivered; false when the journal refused
    /// one first (the session holds it, or moved).
    private func waitUntilDelivered() async -> Bool {
        await commit()
        if let answer = deliveryAnswer() { return answer }
        return await withCheckedContinuation { waiter in
            // Decided again here: see `acknowledgement(of:)`.
            if let answer = deliveryAnswer() { waiter.resume(returning: answer) } else { drainWaiters.append(waiter) }
        }
    }

    /// Whether every queued broadcast was delivered (true) or one will not be (false); nil while
    /// they may still be.
    private func deliveryAnswer() -> Bool? {
        // A session let go (moved) delivers nothing more, and its end must not go on.
        if phase == .moved { return false }
        if outbox.isEmpty { return true }
        guard journalHealth == .healthy else { return false }
        return nil
    }

    private func drain() {
        var durable = 0
        while durable < outbox.count, outbox[durable].durable { durable += 1 }
        if durable > 0 {
            let run = outbox[..<durable]
            let events = run.map(\.encoded), seqs = run.map(\.seq)
            for pending in run { replay.append((pending.seq, pending.encoded)) }
            lastDelivered = outbox[durable - 1].seq
            outbox.removeFirst(durable)
            // Keep at least the last `replayBufferSize` broadcasts; trim in batches.
            if replay.count > 2 * configuration.replayBufferSize {
                replay.removeFirst(replay.count - configuration.replayBufferSize)
            }
            // Each member gets the run at once, from its first undelivered seq on.
            // By index: iterating `seats` would copy every seat (and retain all it holds) per run.
            for index in seats.indices where seats[index].present && seats[index].deliverFrom <= lastDelivered {
                guard let link = seats[index].link else { continue }
                let deliverFrom = seats[index].deliverFrom
                let skip = seqs.firstIndex { $0 >= deliverFrom } ?? events.count
                if events.count - skip == 1 {
                    link.deliver(events[skip])
                } else {
                    link.deliver(contentsOf: skip == 0 ? events : Array(events[skip...]))
                }
            }
        }
        if !acknowledgementWaiters.isEmpty {
            var waiting: [(seq: Int, continuation: CheckedContinuation<Bool, Never>)] = []
            for waiter in acknowledgementWaiters {
                if waiter.seq <= lastDelivered { waiter.continuation.resume(returning: true) } else { waiting.append(waiter) }
            }
            acknowledgementWaiters = waiting
        }
        if outbox.isEmpty, !drainWaiters.isEmpty {
            let waiters = drainWaiters
            drainWaiters.removeAll()
            for waiter in waiters { waiter.resume(returning: true) }
        }
    }
}
