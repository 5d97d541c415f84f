import NIOCore

/// How late the load generator's own event loop runs: a task due every ``interval`` records, in
/// its loop's ``Recorder/loopLag``, how long after its due time it ran, while the run is between
/// `from` and `until` (the steady state).
///
/// A delivery that arrives while the loop is busy waits about as long, so this is the share of
/// the measured fan-out tail that is the load generator's and not the server's: with the lag's
/// p99 near the fan-out p99, the generator, not the hub, is the bottleneck of the measurement.
/// Touch it on its loop only (it schedules itself there).
final class LoopLagProbe: @unchecked Sendable {
    /// Between two probes (one is due `interval` after the previous one ran).
    static let interval: UInt64 = 10_000_000

    private let loop: any EventLoop
    private let recorder: Recorder
    private let from: UInt64
    private let until: UInt64

    /// Starts probing `loop` into `recorder`; probes stop by themselves after `until`.
    static func start(on loop: any EventLoop, recorder: Recorder, from: UInt64, until: UInt64) {
        let probe = LoopLagProbe(loop: loop, recorder: recorder, from: from, until: until)
        loop.execute { probe.schedule(at: max(from, monotonicNanos() + interval)) }
    }

    private init(loop: any EventLoop, recorder: Recorder, from: UInt64, until: UInt64) {
        self.loop = loop
        self.recorder = recorder
        self.from = from
        self.until = until
    }

    private func schedule(at due: UInt64) {
        guard due <= until else { return }
        loop.scheduleTask(deadline: deadline(atNanos: due)) { [self] in
            let now = monotonicNanos()
            if due >= from { recorder.loopLag(micros: (now > due ? now - due : 0) / 1000, now: now) }
            schedule(at: now + Self.interval)
        }
    }
}
