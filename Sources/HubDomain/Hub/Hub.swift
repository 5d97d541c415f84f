/// The registry of live sessions: creates them, finds them by join code, knows which user sits
/// where (one live session per user), and maps resume tokens to seats. Each session owns its
/// own state; once a connection has its ``LiveSession`` it talks to it directly.
///
/// The registry runs on ``SessionExecutors/hubExecutor()`` (the server puts it on one of its
/// event loops, beside the sessions and connections there).
public actor Hub {
    /// The scenarios offered.
    public nonisolated let catalog: ScenarioCatalog
    /// Limits and timings.
    public nonisolated let configuration: HubConfiguration
    private let ports: HubPorts
    /// Where the registry runs (``SessionExecutors/hubExecutor()``).
    private nonisolated let executor: any SerialExecutor

    private var sessions: [String: LiveSession] = [:]
    private var codes: [String: String] = [:]
    /// Sessions being created: counted against ``HubConfiguration/maxLiveSessions`` from the
    /// check on, since a creation waits (for the seat and the directory) before it is listed.
    private var creating = 0
    /// userId → sessionId, for every seat held (connected or in its grace window) and for
    /// requests in flight.
    private var membership: [String: String] = [:]
    private var draining = false
    /// The node cannot reach its cluster's database (``setAdmission(_:)``).
    private var admissionClosed = false
    /// Failed joins per user and per client address, across connections.
    private var joinFailures: JoinFailureLedger

    /// Creates an empty hub.
    public init(catalog: ScenarioCatalog, configuration: HubConfiguration = HubConfiguration(), ports: HubPorts) {
        self.catalog = catalog
        self.configuration = configuration
        self.ports = ports
        self.executor = ports.executors.hubExecutor()
        self.joinFailures = JoinFailureLedger(configuration: configuration)
    }

    /// The registry's executor (``SessionExecutors/hubExecutor()``).
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    // MARK: Entering sessions

    /// Starts a SOLO session for `user`.
    public func startSolo(user: HubUser, scenarioId: String, link: any ParticipantLink, ref: String?) async throws(HubError) -> LiveSession {
        let scenario = try lookUp(scenarioId)
        let session = try await create(scenario: scenario, shared: false, maxPlayers: 1, for: user, near: link)
        await link.settle(near: session.executor)
        return try await seat(user, in: session, link: link, mode: .solo, ref: ref, rollBackSession: true)
    }

    /// Starts a shared session hosted by `user`; the `joined` reply carries its join code.
    public func host(user: HubUser, scenarioId: String, maxPlayers: Int?, link: any ParticipantLink, ref: String?) async throws(HubError) -> LiveSession {
        let scenario = try lookUp(scenarioId)
        let limit = min(scenario.maxPlayers, configuration.maxPlayersPerSession)
        let players = maxPlayers ?? limit
        guard players >= 2, players <= limit else {
            throw HubError(.invalidField, "maxPlayers must be between 2 and \(limit) for \(scenario.id)")
        }
        let session = try await create(scenario: scenario, shared: true, maxPlayers: players, for: user, near: link)
        await link.settle(near: session.executor)
        return try await seat(user, in: session, link: link, mode: .host, ref: ref, rollBackSession: true)
    }

    /// Joins the shared session with `code` (case-insensitive; spaces and dashes ignored). A
    /// session another node of the cluster owns is refused with ``HubError/Code/sessionElsewhere``
    /// naming that node.
    ///
    /// A code that names no live session counts against the failure budgets of `user` and of
    /// `address` (an opaque key for the client's address, nil when unknown); once one is spent,
    /// joins are refused with ``HubError/Code/joinLocked`` for the lockout (``JoinFailureLedger``).
    public func join(user: HubUser, code: String, address: String? = nil, link: any ParticipantLink,
                     ref: String?) async throws(HubError) -> LiveSession {
        try requireNotDraining()
        let now = ports.clock.now()
        try admitJoin(user: user, address: address, now: now)
        let normalized = Self.normalize(code: code)
        guard let id = codes[normalized], let session = sessions[id] else {
            if let placement = try await placementElsewhere(joinCode: normalized) { throw elsewhere(placement) }
            throw unknownJoinCode(user: user, address: address, now: now)
        }
        try await reserve(user.id, for: id)
        await link.settle(near: session.executor)
        return try await seat(user, in: session, link: link, mode: .client, ref: ref, rollBackSession: false)
    }

    /// Where the session with join `code` is, for a client that wants to connect to its node
    /// before joining (`GET /api/join-codes/{code}`). Counted like a join: a code that names no
    /// live session spends the same failure budgets, and a spent budget refuses the lookup.
    /// - Throws: ``HubError/Code/unknownJoinCode``, ``HubError/Code/joinLocked``, or
    ///   ``HubError/Code/storageUnavailable`` when the cluster's directory cannot be reached.
    public func locate(joinCode code: String, user: HubUser, address: String?) async throws(HubError) -> SessionPlacement {
        let now = ports.clock.now()
        try admitJoin(user: user, address: address, now: now)
        let normalized = Self.normalize(code: code)
        if let id = codes[normalized], sessions[id] != nil {
            return SessionPlacement(sessionId: id, owner: ports.directory.local)
        }
        guard let placement = try await placementElsewhere(joinCode: normalized) else {
            throw unknownJoinCode(user: user, address: address, now: now)
        }
        guard placement.owner != nil else { throw elsewhere(placement) }
        return placement
    }

    /// Where the open session `id` is: this hub, another node of the cluster (its owner nil
    /// while none has adopted it), or nil when no open session has that id.
    public func placement(ofSession id: String) async throws(HubError) -> SessionPlacement? {
        if sessions[id] != nil { return SessionPlacement(sessionId: id, owner: ports.directory.local) }
        do {
            return try await ports.directory.locate(sessionId: id)
        } catch {
            throw Self.directoryUnavailable(error)
        }
    }

    private func admitJoin(user: HubUser, address: String?, now: Int64) throws(HubError) {
        if case .locked(let millis) = joinFailures.admit(user: user.id, address: address, now: now) {
            let seconds = Int((millis + 999) / 1000)
            throw HubError(.joinLocked, "too many failed join attempts; try again in \(seconds) s", retryAfterSeconds: seconds)
        }
    }

    /// The open session with this (normalized) join code on another node of the cluster.
    private func placementElsewhere(joinCode normalized: String) async throws(HubError) -> SessionPlacement? {
        do {
            return try await ports.directory.locate(joinCode: normalized)
        } catch {
            throw Self.directoryUnavailable(error)
        }
    }

    /// `unknown_join_code`, counted against the failure budgets of `user` and `address`.
    private func unknownJoinCode(user: HubUser, address: String?, now: Int64) -> HubError {
        _ = joinFailures.recordFailure(user: user.id, address: address, now: now)
        return HubError(.unknownJoinCode, "no live session has this join code")
    }

    /// Puts `user` back in the seat their resume token holds, on a new connection. A seat in a
    /// session another node owns is refused with ``HubError/Code/sessionElsewhere``.
    public func resume(user: HubUser, resumeToken: String, lastSeq: Int, link: any ParticipantLink, ref: String?) async throws(HubError) -> LiveSession {
        guard let id = membership[user.id], let session = sessions[id] else {
            let placement: SessionPlacement?
            do {
                placement = try await ports.directory.seat(of: user.id)
            } catch {
                throw Self.directoryUnavailable(error)
            }
            if let placement { throw elsewhere(placement) }
            throw HubError(.invalidResumeToken, "you hold no seat to resume (it may have expired or the session ended)")
        }
        await link.settle(near: session.executor)
        _ = try await session.resume(userId: user.id, resumeToken: resumeToken, lastSeq: lastSeq, link: link, ref: ref)
        return session
    }

    /// Where `userId`'s seat is: a session of this hub, or of another node of the cluster (for
    /// `welcome`); nil when the user holds none, or the directory cannot be reached.
    public func seatPlacement(of userId: String) async -> SessionPlacement? {
        if let id = membership[userId], sessions[id] != nil {
            return SessionPlacement(sessionId: id, owner: ports.directory.local)
        }
        return try? await ports.directory.seat(of: userId)
    }

    // MARK: Recovery

    /// Rebuilds the sessions a crash left open in `journal`, before the hub takes connections.
    ///
    /// Each one comes back with its transcript, recasts, seats and `seq`; its players have the
    /// grace window to resume with the tokens they hold (see ``ResumeTokenIssuer``). A session
    /// whose goal was reached, or that nobody held a seat in any more, is ended at once (and so
    /// saved). A session whose scenario is no longer in the catalogue, or whose entries cannot
    /// be read, stays in the journal, reported in ``RecoveryReport/skipped``; the others still
    /// come back.
    /// - Throws: only when the list of open sessions itself cannot be read.
    public func recover(from journal: any RecoverableJournal) async throws -> RecoveryReport {
        await rebuild(try await journal.openSessions(), from: journal)
    }

    /// Rebuilds sessions this node has just taken over from another node (the other died, hung
    /// or handed them over), through the same path as ``recover(from:)``: their players resume
    /// here with the tokens they hold, each seat with a fresh grace window.
    /// - Parameter headers: the sessions claimed, whose journal writes `journal` now fences
    ///   with this node's new epoch.
    public func adopt(_ headers: [SessionHeader], from journal: any RecoverableJournal) async -> RecoveryReport {
        await rebuild(headers, from: journal)
    }

    private func rebuild(_ headers: [SessionHeader], from journal: any RecoverableJournal) async -> RecoveryReport {
        var report = RecoveryReport()
        let now = ports.clock.now()
        // Every session's entries in one read where the journal can; one by one (each failure
        // its own session's) when that fails.
        let read = try? await journal.entries(sessionIds: headers.map(\.sessionId))
        for header in headers {
            guard sessions[header.sessionId] == nil else { continue }
            guard let scenario = catalog.scenario(id: header.scenarioId) else {
                report.skipped[header.sessionId] = "scenario \(header.scenarioId) is not in the catalogue"
                continue
            }
            let entries: [JournalEntry]
            do {
                if let read = read?[header.sessionId] {
                    entries = read
                } else {
                    entries = try await journal.entries(sessionId: header.sessionId)
                }
            } catch {
                report.skipped[header.sessionId] = "its journal cannot be read: \(error)"
                continue
            }
            if let code = header.joinCode, codes[code] != nil {
                report.skipped[header.sessionId] = "join code \(code) is taken"
                continue
            }
            let session = register(header, scenario: scenario)
            switch await session.restore(from: entries, now: now) {
            case .empty:
                forget(header.sessionId)
                await journal.closed(sessionId: header.sessionId)
                report.discarded += 1
            case .live:
                for userId in await session.presentUserIds where membership[userId] == nil {
                    membership[userId] = header.sessionId
                }
                report.resumable += 1
            case .mustEnd(let cause):
                await session.end(cause: cause)
                report.ended += 1
            }
        }
        return report
    }

    // MARK: Time and shutdown

    /// Advances every session's clock (grace windows, live stats).
    public func tick() async {
        await tick(Array(sessions.values), now: ports.clock.now())
    }

    /// Advances the clock of the sessions in one of `slices` groups (``tickSlot(of:slices:)``).
    /// Calling it for each slice in turn, `slices` times a second, ticks every session once a
    /// second while spreading their live-stats broadcasts over the second instead of sending
    /// them all at the same instant.
    public func tick(slice: Int, of slices: Int) async {
        await tick(sessions.values.filter { Self.tickSlot(of: $0.id, slices: slices) == slice }, now: ports.clock.now())
    }

    /// Ticks `due`, and returns when every one of them has ticked. The sessions that share a
    /// thread (``SessionExecutors/taskExecutor(sharing:)``) are ticked in turn by one task on
    /// that thread, so that reaching each costs no thread switch; the others one after another
    /// from here.
    private func tick(_ due: [LiveSession], now: Int64) async {
        var shared: [ObjectIdentifier: (executor: any TaskExecutor, sessions: [LiveSession])] = [:]
        var others: [LiveSession] = []
        for session in due {
            if let executor = ports.executors.taskExecutor(sharing: session.executor) {
                shared[ObjectIdentifier(executor), default: (executor, [])].sessions.append(session)
            } else {
                others.append(session)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (executor, sessions) in shared.values {
                group.addTask(executorPreference: executor) {
                    for session in sessions { await session.tick(now: now) }
                }
            }
            for session in others { await session.tick(now: now) }
        }
    }

    /// The slice (0 ..< `slices`) whose ticks advance session `id`: its leading hex digits, so
    /// random ids spread evenly.
    public nonisolated static func tickSlot(of id: String, slices: Int) -> Int {
        guard slices > 1 else { return 0 }
        let value = Int(id.prefix(6), radix: 16) ?? id.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFFFF }
        return value % slices
    }

    /// Lets go of every live session without ending it (``LiveSession/relinquish(_:)``): the
    /// cluster declared this node dead (`.moved`), or it hands its sessions over to its peers
    /// (`.handedOver`). Returns the ids of the sessions let go.
    @discardableResult
    public func relinquishAll(_ reason: DetachReason) async -> [String] {
        let live = Array(sessions.values)
        for session in live { await session.relinquish(reason) }
        for session in live { forget(session.id) }
        membership = membership.filter { sessions[$0.value] != nil }
        return live.map(\.id)
    }

    /// The ids of the live sessions.
    public var liveSessionIds: [String] { Array(sessions.keys) }

    /// Stops (false) or resumes (true) taking new sessions and joins, while live sessions go on:
    /// a node that cannot reach its cluster's database takes no new players.
    public func setAdmission(_ open: Bool) {
        admissionClosed = !open
    }

    /// Refuses new sessions and ends every live one with `cause`, waiting for their history saves.
    public func endAll(cause: EndCause) async {
        draining = true
        for session in Array(sessions.values) { await session.end(cause: cause) }
    }

    // MARK: Reading

    /// The live sessions.
    public var liveSessions: [LiveSession] { Array(sessions.values) }

    /// A live session by id.
    public func session(id: String) -> LiveSession? { sessions[id] }

    /// This node, as the cluster's directory knows it.
    public nonisolated var localNode: NodeLocation { ports.directory.local }

    /// The session `userId` holds a seat in, if any.
    public func session(of userId: String) -> LiveSession? { membership[userId].flatMap { sessions[$0] } }

    /// How many sessions are live.
    public var liveSessionCount: Int { sessions.count }

    /// Failed joins counted and lockouts begun since the hub started (``JoinFailureLedger``).
    public var joinFailureCounts: (failures: Int, lockouts: Int) {
        (joinFailures.failureCount, joinFailures.lockoutCount)
    }

    // MARK: Internals

    private func lookUp(_ scenarioId: String) throws(HubError) -> Scenario {
        try requireNotDraining()
        guard let scenario = catalog.scenario(id: scenarioId) else {
            throw HubError(.unknownScenario, "no scenario with id \(scenarioId.prefix(64))")
        }
        return scenario
    }

    private func requireNotDraining() throws(HubError) {
        if draining { throw HubError(.hubFull, "the hub is shutting down and accepts no new sessions") }
        if admissionClosed {
            throw HubError(.storageUnavailable, "this node cannot reach its database and takes no new players; try again shortly",
                           retryAfterSeconds: 1)
        }
    }

    /// Takes `userId`'s one seat for `sessionId`: in this hub's registry at once (so a second
    /// request of the same user, arriving while this one waits, is refused), then in the
    /// cluster's directory.
    private func reserve(_ userId: String, for sessionId: String) async throws(HubError) {
        if membership[userId] != nil {
            throw HubError(.alreadyInSession, "you already hold a seat in a live session; leave it or resume it first")
        }
        membership[userId] = sessionId
        let other: SessionPlacement?
        do {
            other = try await ports.directory.reserveSeat(userId: userId, sessionId: sessionId)
        } catch {
            if membership[userId] == sessionId { membership[userId] = nil }
            throw Self.directoryUnavailable(error)
        }
        if other != nil {
            if membership[userId] == sessionId { membership[userId] = nil }
            throw HubError(.alreadyInSession, "you already hold a seat in a live session on another node; resume it there first",
                           location: other?.owner)
        }
    }

    private func create(scenario: Scenario, shared: Bool, maxPlayers: Int, for user: HubUser,
                        near link: any ParticipantLink) async throws(HubError) -> LiveSession {
        guard sessions.count + creating < configuration.maxLiveSessions else {
            throw HubError(.hubFull, "the hub holds its maximum of \(configuration.maxLiveSessions) live sessions")
        }
        creating += 1
        defer { creating -= 1 }
        let id = SecureToken.hex128()
        try await reserve(user.id, for: id)
        // A join code is unique in the cluster: the directory refuses one that another open
        // session has (a rare draw), and another is drawn.
        for _ in 0..<Self.joinCodeDraws {
            var code: String?
            if shared {
                var candidate = SecureToken.joinCode(length: configuration.joinCodeLength)
                while codes[candidate] != nil { candidate = SecureToken.joinCode(length: configuration.joinCodeLength) }
                code = candidate
            }
            let header = SessionHeader(sessionId: id, scenarioId: scenario.id, joinCode: code, maxPlayers: maxPlayers,
                                       startedAt: ports.clock.now())
            let listed: Bool
            do {
                listed = try await ports.directory.register(header)
            } catch {
                await release(user.id, from: id)
                throw Self.directoryUnavailable(error)
            }
            if listed { return register(header, scenario: scenario, near: link) }
        }
        await release(user.id, from: id)
        throw HubError(.hubFull, "no free join code was found; try again")
    }

    /// How many join codes ``create(scenario:shared:maxPlayers:for:near:)`` draws before giving up.
    private static let joinCodeDraws = 8

    /// Gives back a seat taken by ``reserve(_:for:)``.
    private func release(_ userId: String, from sessionId: String) async {
        if membership[userId] == sessionId { membership[userId] = nil }
        try? await ports.directory.releaseSeat(userId: userId, sessionId: sessionId)
    }

    private func elsewhere(_ placement: SessionPlacement) -> HubError {
        guard let owner = placement.owner, owner.nodeId != ports.directory.local.nodeId else {
            return HubError(.sessionElsewhere, "the session is moving to another node; try again shortly", retryAfterSeconds: 1)
        }
        return HubError(.sessionElsewhere, "the session is hosted by node \(owner.nodeId); connect to \(owner.publicURL) and send this again",
                        location: owner)
    }

    private static func directoryUnavailable(_ error: any Error) -> HubError {
        HubError(.storageUnavailable, "the cluster's directory cannot be reached; try again shortly", retryAfterSeconds: 1)
    }

    /// Makes the session of `header` and lists it (by id and join code). It runs where
    /// ``HubPorts/executors`` places it: near `link`, its first member's, if any.
    private func register(_ header: SessionHeader, scenario: Scenario, near link: (any ParticipantLink)? = nil) -> LiveSession {
        let id = header.sessionId
        let session = LiveSession(id: id, scenario: scenario, joinCode: header.joinCode, maxPlayers: header.maxPlayers,
                                  configuration: configuration, ports: ports, startedAt: header.startedAt,
                                  executor: ports.executors.executor(near: link)) { [weak self] notice in
            await self?.handle(notice, from: id)
        }
        sessions[id] = session
        if let code = header.joinCode { codes[code] = id }
        return session
    }

    private func seat(_ user: HubUser, in session: LiveSession, link: any ParticipantLink, mode: SessionMode,
                      ref: String?, rollBackSession: Bool) async throws(HubError) -> LiveSession {
        do {
            _ = try await session.join(user, link: link, mode: mode, ref: ref)
            return session
        } catch {
            await release(user.id, from: session.id)
            if rollBackSession { forget(session.id) }
            throw error
        }
    }

    private func handle(_ notice: SessionNotice, from sessionId: String) async {
        switch notice {
        case .departed(let userId):
            await release(userId, from: sessionId)
        case .ended(let userIds):
            forget(sessionId)
            for userId in userIds where membership[userId] == sessionId { membership[userId] = nil }
            for userId in userIds { await release(userId, from: sessionId) }
        case .moved(let userIds):
            // The seats move with the session: only this hub's registry forgets them.
            for userId in userIds where membership[userId] == sessionId { membership[userId] = nil }
            forget(sessionId)
        }
    }

    private func forget(_ sessionId: String) {
        if let session = sessions.removeValue(forKey: sessionId), let code = session.joinCode {
            codes[code] = nil
        }
    }

    /// Upper-cases a typed code and drops spaces and dashes.
    static func normalize(code: String) -> String {
        String(code.uppercased().filter { $0 != " " && $0 != "-" }.prefix(32))
    }
}
