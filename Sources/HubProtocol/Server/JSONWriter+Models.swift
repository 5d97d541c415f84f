import HubDomain

extension JSONWriter {
    /// A `DialogLine` object.
    mutating func write(_ line: DialogLine) {
        beginObject()
        field("id", line.id)
        field("speakerId", line.speakerId)
        field("roleName", line.roleName)
        field("textNative", line.textNative)
        field("textTranslated", line.textTranslated)
        field("timestamp", line.timestamp)
        if let clientId = line.clientId { field("clientId", clientId) }
        endObject()
    }

    /// A recast object.
    mutating func write(_ recast: Recast) {
        beginObject()
        field("id", recast.id)
        field("lineId", recast.lineId)
        field("authorId", recast.authorId)
        field("speakerId", recast.speakerId)
        field("correctedText", recast.correctedText)
        field("explanation", recast.explanation)
        field("issueTypes", strings: recast.issueTypes.map(\.rawValue))
        field("timestamp", recast.timestamp)
        field("accepted", recast.accepted)
        endObject()
    }

    /// A participant as members see it.
    mutating func write(_ participant: ParticipantInfo) {
        beginObject()
        field("userId", participant.userId)
        field("displayName", participant.displayName)
        field("roleName", participant.roleName)
        field("mode", participant.mode.rawValue)
        field("isHost", participant.isHost)
        field("connected", participant.connected)
        endObject()
    }

    /// A `SessionStats` object, field for field the SDK's.
    mutating func write(_ stats: SessionStats) {
        beginObject()
        field("sessionId", stats.sessionId)
        field("startedAt", stats.startedAt)
        field("endedAt", stats.endedAt)
        field("mode", stats.mode.rawValue)
        field("scenarioId", stats.scenarioId)
        field("linesSpoken", stats.linesSpoken)
        field("wordsEncountered", stats.wordsEncountered)
        field("newVocabulary", stats.newVocabulary)
        field("errorsDetected", stats.errorsDetected)
        field("errorsCorrected", stats.errorsCorrected)
        field("xpEarned", stats.xpEarned)
        key("xpBreakdown")
        beginObject()
        field("dialogCompletion", stats.xpBreakdown.dialogCompletion)
        field("vocabularyBonus", stats.xpBreakdown.vocabularyBonus)
        field("accuracyBonus", stats.xpBreakdown.accuracyBonus)
        field("collaborationBonus", stats.xpBreakdown.collaborationBonus)
        field("streakBonus", stats.xpBreakdown.streakBonus)
        endObject()
        endObject()
    }

    /// One participant's figures: stats, collaboration counters and weak spots.
    mutating func write(_ figures: ParticipantStats, history: HistoryWriteResult? = nil) {
        beginObject()
        field("userId", figures.userId)
        key("stats")
        write(figures.stats)
        key("collaboration")
        beginObject()
        field("successfulRepairs", figures.collaboration.successfulRepairs)
        field("helpGiven", figures.collaboration.helpGiven)
        field("teamWins", figures.collaboration.teamWins)
        endObject()
        key("weakSpots")
        beginObject()
        for name in figures.weakSpots.keys.sorted() { field(name, figures.weakSpots[name] ?? 0) }
        endObject()
        if let history {
            key("history")
            write(history)
        }
        endObject()
    }

    /// `{"status":"Success"}` or `{"status":"Error","reason":"featureLocked"}` (the SDK's
    /// `HistoryWriteResult` cases).
    mutating func write(_ result: HistoryWriteResult) {
        beginObject()
        switch result {
        case .success:
            field("status", "Success")
        case .error(let reason):
            field("status", "Error")
            field("reason", reason.rawValue)
        }
        endObject()
    }

    /// A scenario, as listed and in snapshots.
    mutating func write(_ scenario: Scenario) {
        beginObject()
        field("id", scenario.id)
        field("title", scenario.title)
        field("summary", scenario.summary)
        field("targetLanguage", scenario.targetLanguage)
        field("level", scenario.level)
        key("roles")
        beginArray()
        for role in scenario.roles {
            beginObject()
            field("name", role.name)
            field("description", role.description)
            endObject()
        }
        endArray()
        field("minPlayers", scenario.minPlayers)
        field("maxPlayers", scenario.maxPlayers)
        key("goal")
        beginObject()
        field("lines", scenario.goal.lines)
        field("description", scenario.goal.description)
        endObject()
        key("hints")
        beginArray()
        for hint in scenario.hints {
            beginObject()
            field("roleName", hint.roleName)
            field("textNative", hint.textNative)
            field("textTranslated", hint.textTranslated)
            endObject()
        }
        endArray()
        endObject()
    }

    /// A session snapshot.
    mutating func write(_ snapshot: SessionSnapshot) {
        beginObject()
        field("sessionId", snapshot.sessionId)
        key("scenario")
        write(snapshot.scenario)
        field("joinCode", snapshot.joinCode)
        field("hostId", snapshot.hostId)
        field("maxPlayers", snapshot.maxPlayers)
        field("startedAt", snapshot.startedAt)
        field("seq", snapshot.seq)
        key("you")
        write(snapshot.you)
        key("participants")
        beginArray()
        for participant in snapshot.participants { write(participant) }
        endArray()
        key("lines")
        beginArray()
        for line in snapshot.lines { write(line) }
        endArray()
        key("recasts")
        beginArray()
        for recast in snapshot.recasts { write(recast) }
        endArray()
        endObject()
    }
}
