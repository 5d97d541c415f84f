/// The seams a hub and its sessions talk through, injected once.
public struct HubPorts: Sendable {
    /// Server time.
    public var clock: any HubClock
    /// Encodes each broadcast once for all its recipients.
    public var encoder: any SessionEventEncoder
    /// Where accepted changes are made durable before they are broadcast.
    public var journal: any SessionJournal
    /// Saves ended sessions to history.
    public var history: any HistoryWriter
    /// Known words and streaks per user.
    public var learners: any LearnerRecords
    /// Issues and vouches for resume tokens.
    public var resumeTokens: any ResumeTokenIssuer
    /// Where sessions and seats of other nodes are (``SingleNodeDirectory`` when alone).
    public var directory: any SessionDirectory
    /// Where each session's actor runs.
    public var executors: any SessionExecutors

    /// Bundles the seams.
    public init(clock: any HubClock = SystemHubClock(), encoder: any SessionEventEncoder,
                journal: any SessionJournal = InMemorySessionJournal(),
                history: any HistoryWriter = InMemoryHistoryWriter(),
                learners: any LearnerRecords = InMemoryLearnerRecords(),
                resumeTokens: any ResumeTokenIssuer = RandomResumeTokens(),
                directory: any SessionDirectory = SingleNodeDirectory(),
                executors: any SessionExecutors = SerialQueueSessionExecutors()) {
        self.clock = clock
        self.encoder = encoder
        self.journal = journal
        self.history = history
        self.learners = learners
        self.resumeTokens = resumeTokens
        self.directory = directory
        self.executors = executors
    }
}
