/// The seams a hub and its sessions talk through, injected once.
public struct HubPorts: Sendable {
    public var clock: any HubClock
    public var encoder: any SessionEventEncoder
    public var journal: any SessionJournal
    public var history: any HistoryWriter
    public var learners: any LearnerRecords

    /// Bundles the seams.
    public init(clock: any HubClock = SystemHubClock(), encoder: any SessionEventEncoder,
                journal: any SessionJournal = InMemorySessionJournal(),
                history: any HistoryWriter = InMemoryHistoryWriter(),
                learners: any LearnerRecords = InMemoryLearnerRecords()) {
        self.clock = clock
        self.encoder = encoder
        self.journal = journal
        self.history = history
        self.learners = learners
    }
}
