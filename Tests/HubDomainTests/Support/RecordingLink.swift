import HubDomain
import Synchronization
import Testing

/// A ``ParticipantLink`` that records everything the session sends it, in order.
final class RecordingLink: ParticipantLink {
    enum Record: Sendable {
        case reply(SessionReply)
        case deliver(TestEncodedEvent)
        case detach(DetachReason)
    }

    private static let nextId = Atomic<UInt64>(1)

    let linkId: UInt64
    private let log = Mutex<[Record]>([])
    private let calls = Mutex<[[Int]]>([])

    init() {
        linkId = Self.nextId.add(1, ordering: .relaxed).oldValue
    }

    func deliver(_ event: any EncodedEvent) {
        guard let event = event as? TestEncodedEvent else {
            Issue.record("delivered an event the test encoder did not make: \(event)")
            return
        }
        log.withLock { $0.append(.deliver(event)) }
        calls.withLock { $0.append([event.seq]) }
    }

    func deliver(contentsOf events: [any EncodedEvent]) {
        for event in events {
            guard let event = event as? TestEncodedEvent else {
                Issue.record("delivered an event the test encoder did not make: \(event)")
                return
            }
            log.withLock { $0.append(.deliver(event)) }
        }
        calls.withLock { $0.append(events.compactMap { ($0 as? TestEncodedEvent)?.seq }) }
    }

    /// The seqs of each delivery call, in order: one for ``deliver(_:)``, several for
    /// ``deliver(contentsOf:)``.
    var deliveryCalls: [[Int]] { calls.withLock { $0 } }

    func reply(_ reply: SessionReply) { log.withLock { $0.append(.reply(reply)) } }

    func detach(_ reason: DetachReason) { log.withLock { $0.append(.detach(reason)) } }

    // MARK: Reading

    /// Everything, in arrival order.
    var records: [Record] { log.withLock { $0 } }

    var replies: [SessionReply] {
        records.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
    }

    var delivered: [TestEncodedEvent] {
        records.compactMap { if case .deliver(let event) = $0 { event } else { nil } }
    }

    var detaches: [DetachReason] {
        records.compactMap { if case .detach(let reason) = $0 { reason } else { nil } }
    }

    var envelopes: [SessionEnvelope] { delivered.map(\.envelope) }
    var seqs: [Int] { delivered.map(\.seq) }
    var events: [SessionEvent] { delivered.map(\.event) }

    /// The dialog lines delivered, in order.
    var lines: [DialogLine] {
        events.compactMap { if case .line(let line, _) = $0 { line } else { nil } }
    }

    /// The presence changes delivered, in order.
    var presenceChanges: [PresenceChange] {
        events.compactMap { if case .participants(let change, _) = $0 { change } else { nil } }
    }

    /// The `ended` summary, if one was delivered.
    var endSummary: SessionEndSummary? {
        events.lazy.compactMap { if case .ended(let summary) = $0 { summary } else { nil } }.first
    }

    /// The first `joined` reply's snapshot and token.
    var joined: (snapshot: SessionSnapshot, resumeToken: String, ref: String?)? {
        for reply in replies {
            if case .joined(let snapshot, let token, let ref) = reply { return (snapshot, token, ref) }
        }
        return nil
    }

    /// The last `resumed` reply.
    var resumed: (replayed: Int, snapshot: SessionSnapshot?, resumeToken: String, ref: String?)? {
        for reply in replies.reversed() {
            if case .resumed(let replayed, let snapshot, let token, let ref) = reply { return (replayed, snapshot, token, ref) }
        }
        return nil
    }

    /// The seq of the last delivered broadcast, or the joined snapshot's seq when none came yet.
    var lastSeq: Int { seqs.last ?? joined?.snapshot.seq ?? 0 }

    /// Forgets what was recorded so far.
    func clear() { log.withLock { $0.removeAll() } }
}
