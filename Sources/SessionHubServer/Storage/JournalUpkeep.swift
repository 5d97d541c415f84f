import HubStorage
import Logging

/// What ``HubPersistence/sqlite(path:logger:commitInterval:commitLoop:journal:)`` does with its
/// local journal besides opening it: the upkeep's two steps, each on its own, and the warning
/// for what a log journal's recovery set aside.
enum JournalUpkeep {
    /// Drops the sessions the store marked ended, then keeps the journal's files small
    /// (``HubStorage/LocalJournal/tidy()``, the only place a log journal deletes segments, and
    /// its periodic full sync), each failure logged on its own: a lasting failure of the first
    /// (a store busy during a backup, a damaged marker table) must not stop the second, else the
    /// log's segments pile up without end.
    static func run(_ journal: any LocalJournal, store: SQLiteDatabase, logger: Logger) {
        do {
            try journal.forgetEnded(in: store)
        } catch {
            logger.warning("journal upkeep failed", metadata: ["step": "forget_ended", "error": "\(error)"])
        }
        do {
            try journal.tidy()
        } catch {
            logger.warning("journal upkeep failed", metadata: ["step": "tidy", "error": "\(error)"])
        }
    }

    /// Logs at warning level what `journal`'s recovery cut off or set aside, when anything.
    static func logRecovery(of journal: LogJournal, logger: Logger) {
        let report = journal.recovery
        guard !report.isEmpty else { return }
        logger.warning("journal recovery set data aside", metadata: [
            "directory": "\(journal.directory)",
            "bytes_cut": "\(report.bytesCut)",
            "segments_set_aside": "\(report.segmentsSetAside.count)",
            "bytes_set_aside": "\(report.bytesSetAside)",
            "segments": "\(report.segmentsSetAside.joined(separator: ","))",
            "quarantine": "\(report.quarantine ?? "")",
        ])
    }

    /// Logs a failure a log journal reports from the background (a failed sync breaks it).
    static func failureHandler(_ logger: Logger) -> @Sendable (String) -> Void {
        { message in logger.error("journal failure", metadata: ["error": "\(message)"]) }
    }
}
