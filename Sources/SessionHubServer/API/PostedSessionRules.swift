import HubDomain

/// The checks a session the user's app saved on its own (`POST /api/history`) must pass before
/// it is stored. The transcript limits are the live session's (`session.maxLines`,
/// `session.maxTextLength`, `session.maxRecasts`, `session.maxExplanationLength`), so a posted
/// session holds no more than a played one could; the whole body is bounded by
/// `http.maxApiBodySize`. Breaches answer the protocol's codes for the same limits.
struct PostedSessionRules: Sendable {
    /// The live session's limits and text rules.
    let hub: HubConfiguration
    var maxLines: Int { hub.maxLinesPerSession }
    var maxRecasts: Int { hub.maxRecastsPerSession }
    var maxExplanationLength: Int { hub.maxExplanationLength }

    /// The live session's limits.
    init(_ hub: HubConfiguration) {
        self.hub = hub
    }

    /// Longest `sessionId`, `dialogLines[].id`, `speakerId`, recast ids, in bytes.
    static let maxIdLength = 128
    /// Longest `scenarioTitle` and `roleName`, in characters.
    static let maxTitleLength = 200
    /// Longest `durationSeconds`: a day.
    static let maxDurationSeconds = 86_400
    /// How far `timestamp` may lie ahead of the hub's clock (the app's clock may run fast), ms.
    static let maxClockAheadMillis: Int64 = 86_400_000

    /// Checks `session` and returns it as it is stored (`targetLanguage` in canonical case); the
    /// first breach is thrown with its stable code and the field it names.
    func checked(_ posted: HistorySession, now: Int64) throws(APIError) -> HistorySession {
        var session = posted
        guard Self.isId(session.sessionId) else {
            throw .badRequest("sessionId must be 1 to \(Self.maxIdLength) characters of A-Z a-z 0-9 . _ : -")
        }
        guard (1...Self.maxTitleLength).contains(session.scenarioTitle.count) else {
            throw .badRequest("scenarioTitle must be 1 to \(Self.maxTitleLength) characters")
        }
        guard session.timestamp > 0, session.timestamp <= now + Self.maxClockAheadMillis else {
            throw .badRequest("timestamp must be a positive epoch-milliseconds integer, at most a day ahead of the hub's clock")
        }
        guard let language = LanguageTag.canonical(session.targetLanguage) else {
            throw .badRequest("targetLanguage must be a BCP 47 language tag such as es, en-US or pt-BR (at most \(LanguageTag.maxLength) characters)")
        }
        session.targetLanguage = language
        guard (0...Self.maxDurationSeconds).contains(session.durationSeconds) else {
            throw .badRequest("durationSeconds must be 0 to \(Self.maxDurationSeconds)")
        }
        guard session.dialogLines.count <= maxLines else {
            throw APIError(.badRequest, HubError.Code.sessionLimit.rawValue, "dialogLines: at most \(maxLines) lines")
        }
        var lineIds = Set<String>()
        for index in session.dialogLines.indices {
            let line = session.dialogLines[index]
            guard Self.isId(line.id), lineIds.insert(line.id).inserted else {
                throw .badRequest("dialogLines[].id must be unique, 1 to \(Self.maxIdLength) characters of A-Z a-z 0-9 . _ : -")
            }
            guard !line.speakerId.isEmpty, line.speakerId.utf8.count <= Self.maxIdLength else {
                throw .badRequest("dialogLines[].speakerId must be 1 to \(Self.maxIdLength) bytes")
            }
            guard line.roleName.count <= Self.maxTitleLength else {
                throw .badRequest("dialogLines[].roleName must be at most \(Self.maxTitleLength) characters")
            }
            session.dialogLines[index].textNative = try text(line.textNative, "dialogLines[].textNative")
            session.dialogLines[index].textTranslated = try text(line.textTranslated, "dialogLines[].textTranslated",
                                                                 allowEmpty: true)
            guard line.timestamp >= 0 else { throw .badRequest("dialogLines[].timestamp must not be negative") }
        }
        if let recasts = session.recasts {
            guard recasts.count <= maxRecasts else {
                throw APIError(.badRequest, HubError.Code.sessionLimit.rawValue, "recasts: at most \(maxRecasts) recasts")
            }
            for (index, recast) in recasts.enumerated() {
                guard Self.isId(recast.id), Self.isId(recast.lineId) else {
                    throw .badRequest("recasts[].id and lineId must be 1 to \(Self.maxIdLength) characters of A-Z a-z 0-9 . _ : -")
                }
                session.recasts?[index].correctedText = try text(recast.correctedText, "recasts[].correctedText")
                if let explanation = recast.explanation, explanation.count > maxExplanationLength {
                    throw APIError(.badRequest, HubError.Code.textTooLong.rawValue,
                                   "recasts[].explanation is longer than \(maxExplanationLength) characters")
                }
            }
        }
        return session
    }

    /// `text` as a live session keeps it (trimmed, not empty unless `allowEmpty`, not too long),
    /// or the live session's refusal with its code.
    private func text(_ text: String, _ field: String, allowEmpty: Bool = false) throws(APIError) -> String {
        do {
            return try hub.validatedText(text, field: field, allowEmpty: allowEmpty)
        } catch {
            throw APIError(.badRequest, error.code.rawValue, error.message)
        }
    }

    /// 1 to ``maxIdLength`` characters of `A-Z a-z 0-9 . _ : -` (safe in a URL path).
    static func isId(_ text: String) -> Bool {
        (1...maxIdLength).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
