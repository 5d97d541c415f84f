/// What a ``LogJournal`` set aside when it opened: the bytes it cut off the end of the log (a
/// record torn or damaged, and whatever followed it in its segment) and the segments it did not
/// read (every one after the cut, or after a segment that lost its tail). Nothing is deleted: it
/// all goes to ``quarantine`` for an operator to look at. Empty after a clean stop, and after a
/// `kill -9` that did not tear a write.
public struct LogRecoveryReport: Sendable, Equatable {
    /// Bytes cut off the end of the last segment kept (saved in ``quarantine`` first).
    public var bytesCut: Int
    /// The segments not read, by file name (moved into ``quarantine``).
    public var segmentsSetAside: [String]
    /// Bytes in ``segmentsSetAside``.
    public var bytesSetAside: Int
    /// The directory the cut bytes and the segments went to, when anything did.
    public var quarantine: String?

    /// Creates a report.
    public init(bytesCut: Int = 0, segmentsSetAside: [String] = [], bytesSetAside: Int = 0, quarantine: String? = nil) {
        self.bytesCut = bytesCut
        self.segmentsSetAside = segmentsSetAside
        self.bytesSetAside = bytesSetAside
        self.quarantine = quarantine
    }

    /// Whether recovery set nothing aside.
    public var isEmpty: Bool { bytesCut == 0 && segmentsSetAside.isEmpty }
}
