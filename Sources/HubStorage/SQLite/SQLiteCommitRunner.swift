/// Where a ``SQLiteJournal`` runs its group commits.
///
/// By default (``DispatchCommitRunner``) on a serial dispatch queue of the journal's own: an
/// append hops to that thread and its session is woken back from it. A host with one event loop
/// can run the commits on that loop instead, so that neither hop costs a thread switch; a commit
/// then holds the loop for as long as SQLite writes its WAL frames (no `fsync` in WAL mode with
/// `synchronous=NORMAL`).
///
/// The journal never runs two commits at once whatever the runner does: it takes a lock of its
/// own around each commit and around its exclusive work (``SQLiteJournal/remove(sessionId:)``,
/// ``SQLiteJournal/forgetEnded(in:)``, ``SQLiteJournal/close()``).
public protocol SQLiteCommitRunner: Sendable {
    /// Runs `work` soon, after what the runner already has in hand.
    func run(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` once the monotonic clock (`DispatchTime`'s uptime) reaches `deadline`, or soon
    /// when it is already past.
    func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void)
}
