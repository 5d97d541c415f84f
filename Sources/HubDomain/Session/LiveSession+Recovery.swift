/// Rebuilding a session from its journal after a restart.
extension LiveSession {
    /// How a rebuilt session stands.
    public enum RestoreOutcome: Sendable, Equatable {
        /// Live again: its present players hold their seats for the grace window.
        case live
        /// Its goal was reached or everyone had left before the crash: it must be ended.
        case mustEnd(EndCause)
        /// The journal holds nothing to rebuild (no membership change at all).
        case empty
    }

    /// Replays the journal's `entries` into this new session: transcript, recasts, seats,
    /// counters, host, `seq`, and the replay buffer (so a resume after the restart gets exactly
    /// the broadcasts it missed). Present players count as disconnected since `now`: each has
    /// the grace window to resume with the token they hold.
    ///
    /// Call once, on a session made with the header's id, scenario, code, seats and start.
    public func restore(from entries: [JournalEntry], now: Int64) async -> RestoreOutcome {
        headerJournaled = true
        for entry in entries.sorted(by: { $0.seq < $1.seq }) {
            switch entry.event {
            case .participants(_, let present):
                applyPresence(present, at: entry.timestamp)
            case .line(let line, _):
                _ = record(line)
                if let clientId = line.clientId {
                    clientLines[ClientLineKey(speakerId: line.speakerId, clientId: clientId)] = (line.id, entry.seq)
                }
            case .recast(var recast, _):
                recast.accepted = false
                record(recast)
            case .recastAccepted(let recastId, _, _, _):
                if let position = recastIndex[recastId], !recasts[position].accepted { recordAcceptance(of: position) }
            case .hostChanged(let userId):
                hostId = userId
            case .stats:
                break
            case .ended(let summary):
                return .mustEnd(summary.cause)
            }
            seq = max(seq, entry.seq)
            replay.append((entry.seq, ports.encoder.encode(SessionEnvelope(sessionId: id, seq: entry.seq, event: entry.event))))
        }
        if replay.count > configuration.replayBufferSize {
            replay.removeFirst(replay.count - configuration.replayBufferSize)
        }
        lastDelivered = seq
        statsDirty.removeAll()
        guard !seats.isEmpty else { return .empty }
        for index in seats.indices {
            let known = await ports.learners.knownWords(userId: seats[index].user.id, language: scenario.targetLanguage)
            seats[index].know(known, amid: sessionWords)
            seats[index].resumeToken = nil
            seats[index].presentedResumeToken = nil
            seats[index].link = nil
            seats[index].graceDeadline = seats[index].present ? now + configuration.graceWindowMillis : nil
        }
        if goalReached { return .mustEnd(.goalReached) }
        if presentCount == 0 { return .mustEnd(.abandoned) }
        return .live
    }

    /// The users holding a seat (connected or not).
    public var presentUserIds: [String] { seats.filter(\.present).map(\.user.id) }

    /// Seats everyone in `present` (creating seats for newcomers) and unseats the rest.
    private func applyPresence(_ present: [ParticipantInfo], at timestamp: Int64) {
        let here = Set(present.map(\.userId))
        for index in seats.indices { seats[index].present = here.contains(seats[index].user.id) }
        for info in present {
            if let index = seats.firstIndex(where: { $0.user.id == info.userId }) {
                seats[index].user.displayName = info.displayName
                seats[index].roleName = info.roleName
                seats[index].mode = info.mode
            } else {
                seats.append(Seat(user: HubUser(id: info.userId, displayName: info.displayName), roleName: info.roleName,
                                  mode: info.mode, joinedAt: timestamp, resumeToken: nil, link: nil, knownWords: [],
                                  newVocabulary: sessionWords.count))
            }
            if info.isHost { hostId = info.userId }
        }
    }
}
