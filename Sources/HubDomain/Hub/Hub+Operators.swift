

/// The operator's view and controls: read-only inspection of the live sessions and the two
/// actions of the operator API — end a session, remove a participant. Both go through the same
/// paths as the players' own requests (``LiveSession/end(cause:ref:)``, ``LiveSession/remove(userId:)``),
/// so an operator's end is saved to history and broadcast like any other.
extension Hub {
    /// Every live session, oldest first, as of `now` (epoch ms).
    public func inspectSessions(now: Int64) async -> [SessionInspection] {
        var result: [SessionInspection] = []
        for session in liveSessions {
            result.append(await session.inspect(now: now))
        }
        return result.sorted { ($0.startedAt, $0.sessionId) < ($1.startedAt, $1.sessionId) }
    }

    /// One live session with its transcript and recasts, or nil when no live session has `id`.
    public func inspectSession(id: String, now: Int64) async -> SessionInspection? {
        guard let session = session(id: id) else { return nil }
        return await session.inspect(now: now, includeTranscript: true)
    }

    /// Ends the live session `id` with cause ``EndCause/operatorEnded``: final figures, the
    /// history save, `ended` to its members, exactly as when its host ends it. Returns once the
    /// session is over, with its end summary.
    /// - Throws: ``OperatorError/unknownSession(_:)``; ``OperatorError/sessionEnding(_:)`` when
    ///   something else was already ending it.
    public func endSession(id: String) async throws(OperatorError) -> SessionEndSummary {
        guard let session = session(id: id) else { throw .unknownSession(id) }
        guard await !session.isOver else { throw .sessionEnding(id) }
        await session.end(cause: .operatorEnded)
        // `end` returns at once when another end started between the check and the call; the
        // summary then is someone else's (or not there yet).
        guard let summary = await session.summary, summary.cause == .operatorEnded else { throw .sessionEnding(id) }
        return summary
    }

    /// Removes `userId` from the live session `sessionId`: their seat is released
    /// (`participants{removed}` to the others, hosting handed on), their connection gets
    /// `left{reason:"removed"}` and returns to the lobby. Removing the last participant ends
    /// the session (`abandoned`).
    /// - Throws: ``OperatorError/unknownSession(_:)``, ``OperatorError/unknownParticipant(sessionId:userId:)``
    ///   (never joined, or already left), ``OperatorError/sessionEnding(_:)``.
    public func removeParticipant(userId: String, fromSession sessionId: String) async throws(OperatorError) -> OperatorRemoval {
        guard let session = session(id: sessionId) else { throw .unknownSession(sessionId) }
        do {
            try await session.remove(userId: userId)
        } catch {
            switch error.code {
            case .notInSession: throw .unknownParticipant(sessionId: sessionId, userId: userId)
            default: throw .sessionEnding(sessionId)
            }
        }
        let hostId = await session.participants().first(where: \.isHost)?.userId
        return OperatorRemoval(userId: userId, hostId: hostId, sessionEnded: await session.isOver)
    }

    /// Counts for the operator's server view: live sessions, of which shared, seats held, of
    /// which connected (the rest are in their grace window).
    public func operatorCounts() async -> OperatorCounts {
        var counts = OperatorCounts()
        for session in liveSessions {
            counts.sessions += 1
            if session.isShared { counts.sharedSessions += 1 }
            for participant in await session.participants() {
                counts.seats += 1
                if participant.connected { counts.connectedSeats += 1 }
            }
        }
        return counts
    }
}
