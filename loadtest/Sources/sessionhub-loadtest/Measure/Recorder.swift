import Histogram

/// Latencies are kept in microseconds, up to a minute (anything slower is clamped to that).
let histogramCeilingMicros: UInt64 = 60_000_000

func makeLatencyHistogram(digits: SignificantDigits = .three) -> Histogram<UInt64> {
    Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: histogramCeilingMicros, numberOfSignificantValueDigits: digits)
}

/// What happened in one second of a run (by receive time, from the run's origin).
struct SecondBucket: Sendable {
    var deliveries = 0
    var sends = 0
    var maxMicros: UInt64 = 0
    /// The latest the load generator's own loop ran a probe task due in this second (µs).
    var maxLoopLagMicros: UInt64 = 0
    var latency = makeLatencyHistogram(digits: .two)

    mutating func merge(_ other: SecondBucket) {
        deliveries += other.deliveries
        sends += other.sends
        maxMicros = max(maxMicros, other.maxMicros)
        maxLoopLagMicros = max(maxLoopLagMicros, other.maxLoopLagMicros)
        latency.add(other.latency)
    }
}

/// The measurements of one event loop. Every connection lives on one loop and records into that
/// loop's recorder only, so recording takes no lock; the run merges the recorders at the end
/// (on their loops). Not thread-safe by design: touch it on its loop only.
final class Recorder: @unchecked Sendable {
    let origin: UInt64

    /// Fan-out latency: send stamp to receipt, every member's copy (the sender's own included).
    var fanout = makeLatencyHistogram()
    /// TCP connect + WebSocket upgrade.
    var connect = makeLatencyHistogram()
    /// From the start of the connect to `welcome`.
    var welcome = makeLatencyHistogram()
    /// From `host`/`join` sent to `joined`.
    var join = makeLatencyHistogram()
    /// How late this loop ran tasks due at a fixed time (``LoopLagProbe``), in the steady state.
    var loopLag = makeLatencyHistogram()
    var seconds: [SecondBucket] = []

    var sent = 0
    var received = 0
    /// Monotonic ns of the latest delivery.
    var lastDeliveryAt: UInt64 = 0
    var acked = 0
    var lost = 0
    var duplicated = 0
    var outOfOrder = 0
    var foreign = 0
    var otherBroadcasts = 0
    var lateRequests = 0
    var retries = 0
    var connectFailures = 0
    var errors: [String: Int] = [:]
    var closes: [String: Int] = [:]

    init(origin: UInt64) {
        self.origin = origin
    }

    @inline(__always)
    private func bucketIndex(_ now: UInt64) -> Int? {
        guard now >= origin else { return nil }
        let index = Int((now - origin) / 1_000_000_000)
        guard index < 100_000 else { return nil }
        while seconds.count <= index { seconds.append(SecondBucket()) }
        return index
    }

    /// One delivery of a stamped message, received at `now`.
    @inline(__always)
    func delivery(sentAt: UInt64, now: UInt64) {
        received += 1
        if now > lastDeliveryAt { lastDeliveryAt = now }
        let micros = min(now > sentAt ? (now - sentAt) / 1000 : 0, histogramCeilingMicros)
        fanout.record(max(micros, 1))
        if let i = bucketIndex(now) {
            seconds[i].deliveries += 1
            seconds[i].latency.record(max(micros, 1))
            if micros > seconds[i].maxMicros { seconds[i].maxMicros = micros }
        }
    }

    /// A loop-lag probe that ran `micros` late at `now` (``LoopLagProbe``).
    func loopLag(micros: UInt64, now: UInt64) {
        loopLag.record(max(1, min(micros, histogramCeilingMicros)))
        if let i = bucketIndex(now), micros > seconds[i].maxLoopLagMicros { seconds[i].maxLoopLagMicros = micros }
    }

    /// One message sent at `now`.
    @inline(__always)
    func sentOne(now: UInt64) {
        sent += 1
        if let i = bucketIndex(now) { seconds[i].sends += 1 }
    }

    func error(_ code: String) { errors[code, default: 0] += 1 }
    func close(_ code: String) { closes[code, default: 0] += 1 }

    static func micros(_ from: UInt64, _ to: UInt64) -> UInt64 {
        min(max(to > from ? (to - from) / 1000 : 0, 1), histogramCeilingMicros)
    }

    /// Adds `other` into this one (call with both quiescent).
    func merge(_ other: Recorder) {
        fanout.add(other.fanout)
        connect.add(other.connect)
        welcome.add(other.welcome)
        join.add(other.join)
        loopLag.add(other.loopLag)
        if seconds.count < other.seconds.count {
            seconds.append(contentsOf: Array(repeating: SecondBucket(), count: other.seconds.count - seconds.count))
        }
        for (i, bucket) in other.seconds.enumerated() { seconds[i].merge(bucket) }
        sent += other.sent
        lastDeliveryAt = max(lastDeliveryAt, other.lastDeliveryAt)
        received += other.received
        acked += other.acked
        lost += other.lost
        duplicated += other.duplicated
        outOfOrder += other.outOfOrder
        foreign += other.foreign
        otherBroadcasts += other.otherBroadcasts
        lateRequests += other.lateRequests
        retries += other.retries
        connectFailures += other.connectFailures
        for (k, v) in other.errors { errors[k, default: 0] += v }
        for (k, v) in other.closes { closes[k, default: 0] += v }
    }
}
