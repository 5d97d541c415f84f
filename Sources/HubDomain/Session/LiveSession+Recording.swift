/// The bookkeeping of accepted changes, shared by live requests and by the rebuild of a
/// session from its journal after a restart (``LiveSession/restore(from:now:)``), so both
/// arrive at the same counters.
extension LiveSession {
    /// What the journal needs to rebuild this session.
    var header: SessionHeader {
        SessionHeader(sessionId: id, scenarioId: scenario.id, joinCode: joinCode, maxPlayers: maxPlayers,
                      startedAt: startedAt)
    }

    /// Adds a line to the transcript and the speaker's counters; true when it reaches the
    /// scenario's goal.
    func record(_ line: DialogLine) -> Bool {
        lineIndex[line.id] = lines.count
        lines.append(line)
        if let speaker = seats.firstIndex(where: { $0.user.id == line.speakerId }) {
            seats[speaker].linesSpoken += 1
        }
        // Each line is split into words once: the review at the end takes the split too.
        let newWords = sessionWords.add(line.textNative)
        if !newWords.isEmpty {
            for index in seats.indices {
                seats[index].meet(newWords)
                if seats[index].present { statsDirty.insert(seats[index].user.id) }
            }
        }
        statsDirty.insert(line.speakerId)
        let reachedNow = !goalReached && lines.count >= scenario.goal.lines
        if reachedNow { goalReached = true }
        return reachedNow
    }

    /// Adds a recast and counts it for its author and for the speaker of the corrected line.
    func record(_ recast: Recast) {
        recastIndex[recast.id] = recasts.count
        recasts.append(recast)
        if let author = seats.firstIndex(where: { $0.user.id == recast.authorId }) {
            seats[author].recastsGiven += 1
        }
        if let speaker = seats.firstIndex(where: { $0.user.id == recast.speakerId }) {
            seats[speaker].recastsReceived += 1
            for type in recast.issueTypes { seats[speaker].weakSpots[type, default: 0] += 1 }
            statsDirty.insert(recast.speakerId)
        }
        statsDirty.insert(recast.authorId)
    }

    /// Marks the recast at `position` accepted and counts it for its speaker and author.
    func recordAcceptance(of position: Int) {
        recasts[position].accepted = true
        let recast = recasts[position]
        if let speaker = seats.firstIndex(where: { $0.user.id == recast.speakerId }) {
            seats[speaker].recastsAccepted += 1
        }
        if let author = seats.firstIndex(where: { $0.user.id == recast.authorId }) {
            seats[author].recastsGivenAccepted += 1
        }
        statsDirty.insert(recast.authorId)
        statsDirty.insert(recast.speakerId)
    }

    /// Whether `token` opens seat `index`: the token issued last; while the seat has no
    /// connection, also the token the last accepted resume presented (its answer may have been
    /// lost); for a seat rebuilt after a restart, which has none in memory, any token the issuer
    /// vouches for.
    func accepts(_ token: String, at index: Int) -> Bool {
        if let issued = seats[index].resumeToken {
            if constantTimeEquals(issued, token) { return true }
            guard seats[index].link == nil, let presented = seats[index].presentedResumeToken else { return false }
            return constantTimeEquals(presented, token)
        }
        return ports.resumeTokens.verify(token, sessionId: id, userId: seats[index].user.id)
    }

    private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
