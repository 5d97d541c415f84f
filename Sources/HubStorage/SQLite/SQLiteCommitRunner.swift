/// Where a ``SQLiteJournal`` runs its group commits.
///
/// By default (``DispatchCommitRunner``) on a serial dispatch queue of the journal's own: an
/// append hops to that thread and its session is woken back from it. A host with one event loop
/// can run the commits on that loop instead, so that neither hop costs a thread switch; a commit
/// then holds the loop while SQLite writes its WAL frames (no `fsync` in WAL mode with
/// `synchronous=NORMAL`), and longer when it must wait for the journal's exclusive work or for a
/// checkpoint finishing on the writer's connection (``SQLiteCheckpointer``, two `fsync`s).
///
/// The journal never runs two commits at once whatever the runner does: it takes a lock of its
/// own around each commit and around its exclusive work (``SQLiteJournal/remove(sessionId:)``,
/// ``SQLiteJournal/forgetEnded(in:)``, ``SQLiteJournal/sweepEnded()``,
/// ``SQLiteJournal/importSessions(_:)``, ``SQLiteJournal/close()``), which commits what is queued
/// on the caller's thread first.
///
/// A runner must run every piece of work it is given: appends wait for it. Work handed to a
/// runner that can no longer run it (an event loop that shut down) is committed only by
/// ``SQLiteJournal/close()``, so close the journal before stopping the runner.
public protocol SQLiteCommitRunner: Sendable {
    /// Runs `work` once the monotonic clock (`DispatchTime`'s uptime) reaches `deadline`, or soon
    /// when it is already past.
    func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void)
}
