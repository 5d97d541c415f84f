// The whole path of one `say` in a 6-player session (see HubPath.swift and SayPath.swift).
import Benchmark
import Dispatch
import Foundation

enum HubPathMetric {
    /// The measured time divided by the deliveries it made (one per member and say: 6 in a
    /// 6-player session), in nanoseconds; one sample per iteration.
    static let perDelivery = BenchmarkMetric.custom("ns per delivery")
}

/// Holds a benchmark's ``SayPath`` between its setup and teardown.
final class SayPathHolder {
    var path: SayPath?
}

func registerSayBenchmarks() {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, HubPathMetric.perDelivery]
    let units: [BenchmarkMetric: BenchmarkUnits] = [.mallocCountTotal: .count, .throughput: .count,
                                                     HubPathMetric.perDelivery: .count]

    func register(_ name: String, compression: Bool, deflateMembers: Bool, players: Int = 6) {
        let holder = SayPathHolder()
        Benchmark(name, configuration: .init(metrics: metrics, units: units)) { benchmark in
            guard let path = holder.path else { fatalError("no fixture") }
            // Not measured: a new session every 29 lines, the next message's text.
            let say = await path.next()
            benchmark.startMeasurement()
            let start = DispatchTime.now().uptimeNanoseconds
            await path.perform(say)
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            benchmark.stopMeasurement()
            benchmark.measurement(HubPathMetric.perDelivery, Int(elapsed) / path.players)
            // Not measured: journaled as a line, delivered exactly once to each member.
            await path.verify([say])
        } setup: {
            let path = try SayPath(compression: compression, deflateMembers: deflateMembers, players: players)
            await path.startSession()
            holder.path = path
        } teardown: {
            guard let path = holder.path else { return }
            await path.endSession()
            HubPathReport.note("\(name): \(path.sent) says in \(path.sessionsStarted) sessions, all delivered \(path.players) times")
            holder.path = nil
        }
    }

    // The server's defaults: compression on (broadcasts carry a compressor), members that did not
    // negotiate permessage-deflate, so nothing is compressed.
    register("Say, 6 players: decode, session, journal, encode once, 6 deliveries",
             compression: true, deflateMembers: false)
    // Every member negotiated deflate: the first delivery compresses the frame, the other five
    // share it.
    register("Say, 6 players, all members with permessage-deflate (compressed once, shared)",
             compression: true, deflateMembers: true)
    // `compression: false` in the server's settings: no compressor at all.
    register("Say, 6 players, compression off", compression: false, deflateMembers: false)
    // The first benchmark with 2 players instead of 6: what 4 more recipients cost
    // ((6 players − 2 players) / 4 per extra recipient).
    register("Say, 2 players (for the cost per extra recipient)", compression: true, deflateMembers: false, players: 2)

    // A whole session's 29 lines said one after the other by one task, as one connection's
    // worker task would (server defaults as in the first benchmark). The benchmark framework runs
    // each iteration in a new task, whose task-local allocator mallocs its 1 KB slabs again; in a
    // long-lived task they are kept and reused. Here they are paid once per 29 says.
    let batch = SayPathHolder()
    Benchmark("Say x29 (one session's lines, one task), 6 players, 174 deliveries",
              configuration: .init(metrics: metrics, units: units, warmupIterations: 10)) { benchmark in
        guard let path = batch.path else { fatalError("no fixture") }
        // Not measured: a new session (the previous one ended) and the texts of its 29 lines.
        let says = await path.nextSession()
        benchmark.startMeasurement()
        let start = DispatchTime.now().uptimeNanoseconds
        for say in says { await path.perform(say) }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        benchmark.stopMeasurement()
        benchmark.measurement(HubPathMetric.perDelivery, Int(elapsed) / (says.count * path.players))
        await path.verify(says)
    } setup: {
        batch.path = try SayPath(compression: true, deflateMembers: false)
    } teardown: {
        guard let path = batch.path else { return }
        await path.endSession()
        HubPathReport.note("Say x29: \(path.sent) says in \(path.sessionsStarted) sessions, all delivered \(path.players) times")
        batch.path = nil
    }
}

/// Notes about the fixtures, on standard error (not part of the results table).
enum HubPathReport {
    static func note(_ line: String) {
        FileHandle.standardError.write(Data(("[hubpath] " + line + "\n").utf8))
    }
}
