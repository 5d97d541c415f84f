/// The queue in front of ``PostgresJournal``'s commits: appends wait here, and up to
/// ``maxInFlight`` committers take them in batches, each batch one transaction.
///
/// With one commit in flight, an append that arrives just after a commit started waits for that
/// commit and then for its own: about two round trips and two `fsync`s. With several in flight it
/// starts its own at once, and PostgreSQL merges the concurrent flushes of its WAL.
///
/// **Order.** Transactions in flight at the same time may commit in any order, so a batch never
/// takes an entry of a session that another batch in flight holds: a session's entries are
/// committed in the order they were appended, and an entry is durable only after every earlier
/// entry of its session. Entries queued together (``enqueue(contentsOf:session:)``) are taken
/// together, since the queue's batches have no size limit.
///
/// A pure value: the journal keeps it behind a lock, and each transition says what to do.
struct JournalCommitQueue<Item> {
    /// The most transactions in flight at once.
    let maxInFlight: Int
    private(set) var pending: [(session: String, item: Item)] = []
    private(set) var committers = 0
    private var busySessions: Set<String> = []

    init(maxInFlight: Int) {
        precondition(maxInFlight >= 1, "at least one commit must be allowed in flight")
        self.maxInFlight = maxInFlight
    }

    /// Queues `item` of `session`. Returns true when the caller must start a committer (which
    /// then calls ``nextBatch(finishing:)`` with no batch until it gets nil).
    mutating func enqueue(_ item: Item, session: String) -> Bool {
        enqueue(contentsOf: CollectionOfOne(item), session: session)
    }

    /// Queues consecutive `items` of `session` together: they are always in the same batch.
    mutating func enqueue(contentsOf items: some Sequence<Item>, session: String) -> Bool {
        for item in items { pending.append((session, item)) }
        guard committers < maxInFlight, !busySessions.contains(session) else { return false }
        committers += 1
        return true
    }

    /// Ends a committer's batch (the sessions of `finished`, if any, are free again) and hands it
    /// the next one: every queued entry whose session no other batch holds, in queue order.
    /// Returns nil when there is nothing it may take; the committer stops then.
    mutating func nextBatch(finishing finished: [String] = []) -> [Item]? {
        busySessions.subtract(finished)
        var batch: [Item] = [], held: [(session: String, item: Item)] = []
        var taken: Set<String> = []
        for (session, item) in pending {
            if busySessions.contains(session) {
                held.append((session, item))
            } else {
                batch.append(item)
                taken.insert(session)
            }
        }
        guard !batch.isEmpty else {
            committers -= 1
            return nil
        }
        pending = held
        busySessions.formUnion(taken)
        return batch
    }
}
