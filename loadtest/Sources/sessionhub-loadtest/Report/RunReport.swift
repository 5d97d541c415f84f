import Foundation
import Histogram

/// Percentiles of a latency histogram, in milliseconds.
struct LatencySummary: Codable, Sendable {
    var count: UInt64
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double
    var mean: Double

    init(_ h: Histogram<UInt64>) {
        count = h.totalCount
        func ms(_ micros: UInt64) -> Double { (Double(micros) / 1000 * 1000).rounded() / 1000 }
        if h.totalCount == 0 {
            p50 = 0; p90 = 0; p99 = 0; p999 = 0; max = 0; mean = 0
        } else {
            p50 = ms(h.valueAtPercentile(50))
            p90 = ms(h.valueAtPercentile(90))
            p99 = ms(h.valueAtPercentile(99))
            p999 = ms(h.valueAtPercentile(99.9))
            max = ms(h.max)
            mean = (h.mean / 1000 * 1000).rounded() / 1000
        }
    }
}

/// One point of the percentile distribution (for the HTML plot).
struct PercentilePoint: Codable, Sendable {
    var percentile: Double
    var ms: Double
}

/// One second of the run (by receive time).
struct TimelinePoint: Codable, Sendable {
    var second: Int
    var deliveries: Int
    var sends: Int
    var p99Ms: Double
    var maxMs: Double
    /// The load generator's own worst loop lag in this second (steady state only; ``LoopLagProbe``).
    var loopLagMs: Double?
    var serverCpuPct: Double?
    var serverRssMiB: Double?
    var otherCpuPct: Double?
}

/// What the server process did, from /proc/PID.
struct ServerSummary: Codable, Sendable {
    var pid: Int32
    /// CPU in % of one core over the measured window (see `cpuWindow`).
    var cpuPct: Double?
    var cpuWindow: String
    var cpuSeconds: Double?
    var rssStartMiB: Double?
    var rssPeakMiB: Double?
    var rssEndMiB: Double?
    var threads: Int?
    /// The same window for the whole machine, in % of one core: everything busy, the
    /// hypervisor's steal, and what neither the server nor this load generator used (other
    /// processes: a noisy neighbour shows here and explains odd tails).
    var machineBusyPct: Double?
    var machineStealPct: Double?
    var otherProcessesPct: Double?
}

/// Session counts of a sessions run.
struct SessionCounts: Codable, Sendable {
    var slots: Int
    var playersPerSession: Int
    var connected: Int
    var hosted: Int
    var joins: Int
    var endedGoalReached: Int
    var endedByHost: Int
    var endedOther: Int
    var unfinished: Int
    var connectionsWithLoss: Int
    var connectionsWithDuplicates: Int
    /// Per connection (only those with a loss or duplicate), "user: lost/duplicated".
    var problemConnections: [String]
}

/// Idle-connection figures.
struct IdleSummary: Codable, Sendable {
    var path: String
    var requested: Int
    var opened: Int
    var authenticated: Int
    var failed: Int
    var droppedDuringHold: Int
    var openAtEnd: Int
    var rampSeconds: Double
    var holdSeconds: Double
    var serverRssBeforeKiB: Int?
    var serverRssWithKiB: Int?
    var serverRssEndKiB: Int?
    var kibPerConnection: Double?
    var serverFdLimit: Int?
    var loadtestFdLimit: UInt64
    var loadtestRssKiB: Int?
}

/// Everything a run measured: printed as a table, written as JSON, drawn as HTML.
struct RunReport: Codable, Sendable {
    var tool = "sessionhub-loadtest"
    var mode: String
    var startedAt: String
    var url: String
    var parameters: [String: String]
    var wallSeconds: Double

    var fanout: LatencySummary
    /// Fan-out latency of the deliveries received between the end of the ramp and the end of
    /// sending (sessions mode): the offered load alone, without the joins of the ramp or the
    /// drain. From the 1 s buckets (two significant digits).
    var steadyFanout: LatencySummary?
    var percentiles: [PercentilePoint]
    var connect: LatencySummary
    var welcome: LatencySummary?
    var join: LatencySummary?

    var sent: Int
    var received: Int
    var acked: Int?
    var expected: Int?
    var lost: Int
    var duplicated: Int
    var outOfOrder: Int
    var foreign: Int
    var otherBroadcasts: Int?
    var lateRequests: Int?
    var retries: Int?
    var connectFailures: Int
    var deliveriesPerSecond: Double
    var deliveryWindowSeconds: Double
    /// Mean deliveries per second over the whole seconds between the end of the ramp and the
    /// end of sending (sessions mode), from the 1 s timeline.
    var steadyDeliveriesPerSecond: Double?
    var errors: [String: Int]
    var closes: [String: Int]

    var sessions: SessionCounts?
    var idle: IdleSummary?
    var server: ServerSummary?
    var loadtestCpuPct: Double
    /// How late the load generator's event loops ran tasks due every 10 ms in the steady state
    /// (sessions mode, ``LoopLagProbe``): its own share of the fan-out tail.
    var loadtestLoopLag: LatencySummary? = nil
    /// The wall-clock time (Unix seconds) where the timeline's second 0 starts (sessions mode), to
    /// line its seconds up with other records of the run: server logs, `vmstat`, `perf`.
    var timelineOriginUnix: Double? = nil
    var timeline: [TimelinePoint]
    var notes: [String]
}

extension RunReport {
    static func percentilePoints(_ h: Histogram<UInt64>) -> [PercentilePoint] {
        guard h.totalCount > 0 else { return [] }
        var points: [PercentilePoint] = []
        for value in h.percentiles(ticksPerHalfDistance: 5) {
            let ms = Double(h.highestEquivalentForValue(value.value)) / 1000
            points.append(PercentilePoint(percentile: value.percentileLevelIteratedTo, ms: (ms * 1000).rounded() / 1000))
            if points.count > 400 { break }
        }
        return points
    }

    static func timeline(_ seconds: [SecondBucket], origin: UInt64, samples: [ProcReading]) -> [TimelinePoint] {
        var points: [TimelinePoint] = []
        for (i, bucket) in seconds.enumerated() {
            var point = TimelinePoint(second: i, deliveries: bucket.deliveries, sends: bucket.sends,
                                      p99Ms: bucket.latency.totalCount > 0 ? Double(bucket.latency.valueAtPercentile(99)) / 1000 : 0,
                                      maxMs: Double(bucket.maxMicros) / 1000)
            if bucket.maxLoopLagMicros > 0 { point.loopLagMs = Double(bucket.maxLoopLagMicros) / 1000 }
            // Server CPU over this second, from the two samples around it.
            let start = origin + UInt64(i) * 1_000_000_000
            let end = start + 1_000_000_000
            if let a = samples.last(where: { $0.at <= start }), let b = samples.first(where: { $0.at >= end }), b.at > a.at {
                point.serverCpuPct = ((b.cpuSeconds - a.cpuSeconds) / (Double(b.at - a.at) / 1e9) * 1000).rounded() / 10
                point.serverRssMiB = (Double(b.rssKiB) / 1024 * 10).rounded() / 10
                let wall = Double(b.at - a.at) / 1e9
                let other = (b.machineBusySeconds - a.machineBusySeconds) - (b.cpuSeconds - a.cpuSeconds) - (b.selfCPUSeconds - a.selfCPUSeconds)
                point.otherCpuPct = (max(0, other) / wall * 1000).rounded() / 10
            }
            points.append(point)
        }
        return points
    }

    /// Server CPU over [from, to] and RSS figures.
    static func server(pid: Int32?, samples: [ProcReading], from: UInt64, to: UInt64, window: String) -> ServerSummary? {
        guard let pid else { return nil }
        var summary = ServerSummary(pid: pid, cpuWindow: window)
        guard !samples.isEmpty else { return summary }
        let a = samples.last(where: { $0.at <= from }) ?? samples.first!
        let b = samples.first(where: { $0.at >= to }) ?? samples.last!
        if b.at > a.at {
            summary.cpuSeconds = ((b.cpuSeconds - a.cpuSeconds) * 100).rounded() / 100
            let wall = Double(b.at - a.at) / 1e9
            summary.cpuPct = ((b.cpuSeconds - a.cpuSeconds) / wall * 1000).rounded() / 10
            if b.machineBusySeconds > 0 {
                summary.machineBusyPct = ((b.machineBusySeconds - a.machineBusySeconds) / wall * 1000).rounded() / 10
                summary.machineStealPct = ((b.machineStealSeconds - a.machineStealSeconds) / wall * 1000).rounded() / 10
                let other = (b.machineBusySeconds - a.machineBusySeconds) - (b.cpuSeconds - a.cpuSeconds) - (b.selfCPUSeconds - a.selfCPUSeconds)
                summary.otherProcessesPct = (max(0, other) / wall * 1000).rounded() / 10
            }
        }
        summary.rssStartMiB = (Double(samples.first!.rssKiB) / 1024 * 10).rounded() / 10
        summary.rssPeakMiB = (Double(samples.map(\.rssKiB).max() ?? 0) / 1024 * 10).rounded() / 10
        summary.rssEndMiB = (Double(samples.last!.rssKiB) / 1024 * 10).rounded() / 10
        summary.threads = samples.last!.threads
        return summary
    }

    static func isoNow() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }

    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
