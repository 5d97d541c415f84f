import Foundation
import NIOCore
import NIOPosix
import WebSocket
import WebSocketTransport

/// Options of `sessionhub-loadtest sessions`.
struct SessionsOptions: Sendable {
    /// One endpoint, or a cluster's nodes: session i is played on `urls[i % urls.count]`, all
    /// its players on that node (as they are once a join has followed its redirect).
    var urls: [String]
    var tokenCommand: String
    var tokenCache: String?
    var sessions: Int
    var players: Int
    var duration: Double
    var rate: Double
    var ramp: Double
    var scenario: String
    var serverPid: Int32?
    var threads: Int
    var deflate: Bool
    var userPrefix: String
    var fullDecode: Bool
    var seed: UInt64
    /// Which player plays: the lean endpoint or the client library.
    var player: PlayerKind = .client
}

/// `--player`: what each player of a sessions run is built on.
enum PlayerKind: String, Sendable, CaseIterable {
    /// `SessionHubClient`, the library apps use (the default: the load test dogfoods it).
    case client
    /// A lean endpoint on the event loop that scans messages without a full decode: the least
    /// load-generator CPU per delivery, for measuring the hub near its ceiling (issue 11).
    case lean
}

/// The `sessions` mode: R sessions of K players over the real `/ws` protocol.
///
/// Timeline (all on the monotonic clock, from `origin`): session slots are started evenly over
/// `ramp` seconds; each player speaks from its `joined` until `origin + duration`; sessions that
/// reach their goal are replaced until 3 s before that; then every host sends `end`, the run
/// waits (≤ 10 s) for every `ended`/`left`, and closes every connection with 1000. The whole
/// measured part stops by `origin + duration + 30 s` at the latest.
struct SessionsRun {
    let options: SessionsOptions
    let log: @Sendable (String) -> Void

    func run() async throws -> RunReport {
        let o = options
        guard (2...8).contains(o.players) else { throw LoadTestFailure.setup("--players must be 2...8") }
        guard o.sessions > 0 else { throw LoadTestFailure.setup("--sessions must be positive") }
        guard o.rate > 0, o.rate < 5 else { throw LoadTestFailure.setup("--rate must be above 0 and under the hub's 5 lines/s") }
        guard o.duration >= 5, o.ramp >= 0, o.ramp < o.duration - 3 else {
            throw LoadTestFailure.setup("--duration must be at least 5 s and more than --ramp + 3 s")
        }
        guard !o.urls.isEmpty else { throw LoadTestFailure.setup("--url is required") }
        let targets = try o.urls.map { try WebSocketURL(parsing: $0) }
        for url in targets where !Loopback.isLoopback(url.host) {
            throw LoadTestFailure.setup("refusing non-loopback target \(url.host)")
        }

        // Tokens (cached between runs).
        let total = o.sessions * o.players
        let users = (1...total).map { n in (id: "\(o.userPrefix)-\(n)", name: "\(o.userPrefix.capitalized) \(n)") }
        let tokens = try TokenCache(command: o.tokenCommand, cacheFile: o.tokenCache).tokens(for: users, log: log)

        FileLimits.raiseToHard()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: o.threads)
        let loops = Array(group.makeIterator())
        let cpu0 = ProcReader.selfCPUSeconds()
        let wallStart = monotonicNanos()
        let origin = monotonicNanos() + 200_000_000
        let recorders = loops.map { _ in Recorder(origin: origin) }
        let sayClocks = loops.map { SayClock(loop: $0) }
        let plan = SessionsPlan(
            scenarioId: o.scenario, players: o.players, rate: o.rate,
            speakEnd: origin + nanos(seconds: o.duration),
            rehostCutoff: origin + nanos(seconds: o.duration - 3),
            fullDecode: o.fullDecode, seed: o.seed)
        let hardStop = origin + nanos(seconds: o.duration + 30)
        Watchdog.start(at: hardStop + 10_000_000_000, what: "sessions run")

        let sampler = o.serverPid.map { ProcessSampler(pid: $0) }
        sampler?.start()

        for (loop, recorder) in zip(loops, recorders) {
            LoopLagProbe.start(on: loop, recorder: recorder, from: origin + nanos(seconds: o.ramp), until: plan.speakEnd)
        }
        let slots = (0..<o.sessions).map { SessionSlot(index: $0) }
        log("ramping up \(o.sessions) sessions x \(o.players) players over \(o.ramp) s; speaking \(o.rate) lines/s each until t=\(o.duration) s")

        // Ramp: slot i starts at origin + i * ramp / sessions.
        await withTaskGroup(of: Void.self) { tasks in
            for slot in slots {
                let at = origin + UInt64(Double(slot.index) * o.ramp / Double(o.sessions) * 1e9)
                await Self.sleep(until: at)
                var players: [any LoadPlayer] = []
                let start = monotonicNanos()
                for seat in 0..<o.players {
                    let n = slot.index * o.players + seat
                    let loopIndex = n % loops.count
                    switch o.player {
                    case .lean:
                        players.append(SessionPlayer(index: n, seat: seat, userId: users[n].id, loop: loops[loopIndex],
                                                     recorder: recorders[loopIndex], sayClock: sayClocks[loopIndex], slot: slot, plan: plan, connectStart: start))
                    case .client:
                        players.append(ClientSessionPlayer(index: n, seat: seat, userId: users[n].id, loop: loops[loopIndex],
                                                           recorder: recorders[loopIndex], sayClock: sayClocks[loopIndex], slot: slot, plan: plan, connectStart: start))
                    }
                }
                slot.set(players)
                let url = targets[slot.index % targets.count]
                for player in players {
                    let token = tokens[player.index]
                    tasks.addTask { await player.start(url: url, token: token, deflate: o.deflate) }
                }
            }
        }
        log("ramp done at t=\(String(format: "%.1f", Double(monotonicNanos() - origin) / 1e9)) s")

        await Self.sleep(until: plan.speakEnd)
        let allPlayers = slots.flatMap(\.players)
        for player in allPlayers { player.loop.execute { player.finish() } }
        log("speaking stopped; hosts sent end, draining")
        let drainUntil = min(monotonicNanos() + 10_000_000_000, hardStop - 6_000_000_000)
        while monotonicNanos() < drainUntil {
            if await Self.count(allPlayers, loops: loops, where: { !$0.settled }) == 0 { break }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        let unsettled = await Self.count(allPlayers, loops: loops, where: { !$0.settled })
        let sendEnd = monotonicNanos()
        for player in allPlayers { player.loop.execute { player.closeNow() } }
        let closeUntil = min(monotonicNanos() + 5_000_000_000, hardStop)
        while monotonicNanos() < closeUntil {
            if await Self.count(allPlayers, loops: loops, where: { !$0.isClosed }) == 0 { break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        sampler?.sampleNow()
        sampler?.stop()
        let wallEnd = monotonicNanos()

        // Merge what each loop measured, on its loop.
        let merged = Recorder(origin: origin)
        for (i, loop) in loops.enumerated() {
            let recorder = recorders[i]
            try await loop.submit { merged.merge(recorder) }.get()
        }
        var problem: [String] = []
        var withLoss = 0, withDup = 0, joins = 0, unfinished = 0, connected = 0
        for player in allPlayers {
            let figures = try await player.loop.submit { (player.lost, player.duplicated, player.sessionsJoined, player.unfinished) }.get()
            if figures.0 > 0 { withLoss += 1 }
            if figures.1 > 0 { withDup += 1 }
            if figures.0 > 0 || figures.1 > 0, problem.count < 50 { problem.append("\(player.userId): lost \(figures.0), duplicated \(figures.1)") }
            if figures.2 > 0 { connected += 1 }
            joins += player.seat > 0 ? figures.2 : 0
            unfinished += figures.3
        }
        var counts = SessionSlot.SlotCounts()
        for slot in slots {
            let c = slot.counts.withLock { $0 }
            counts.hosted += c.hosted
            counts.endedGoal += c.endedGoal
            counts.endedHost += c.endedHost
            counts.endedOther += c.endedOther
        }
        try? await group.shutdownGracefully()

        let samples = sampler?.all ?? []
        let firstSend = origin
        let lastDelivery = merged.lastDeliveryAt > 0 ? merged.lastDeliveryAt : sendEnd
        let window = max(0.001, Double(min(lastDelivery, plan.speakEnd + 1_000_000_000) - firstSend) / 1e9)
        var notes: [String] = []
        if unsettled > 0 { notes.append("\(unsettled) player(s) had not seen their session end when the drain stopped") }
        if merged.lost == 0 && merged.duplicated == 0 { notes.append("every broadcast arrived exactly once, in seq order, on every connection") }
        let loadCPU = (ProcReader.selfCPUSeconds() - cpu0) / (Double(wallEnd - wallStart) / 1e9) * 100
        var report = RunReport(
            mode: "sessions", startedAt: RunReport.isoNow(), url: o.urls.joined(separator: " "),
            parameters: [
                "sessions": "\(o.sessions)", "players": "\(o.players)", "duration_s": "\(o.duration)",
                "rate_lines_per_s": "\(o.rate)", "ramp_s": "\(o.ramp)", "scenario": o.scenario,
                "threads": "\(o.threads)", "player": o.player.rawValue, "deflate": "\(o.deflate)", "full_decode": "\(o.fullDecode)", "seed": "\(o.seed)",
                "offered_lines_per_s": String(format: "%.1f", Double(total) * o.rate),
                "offered_deliveries_per_s": String(format: "%.1f", Double(total) * o.rate * Double(o.players)),
            ],
            wallSeconds: (Double(wallEnd - wallStart) / 1e7).rounded() / 100,
            fanout: LatencySummary(merged.fanout),
            steadyFanout: Self.steadyLatency(merged.seconds, from: Int(o.ramp.rounded(.up)), to: Int(o.duration) - 1),
            percentiles: RunReport.percentilePoints(merged.fanout),
            connect: LatencySummary(merged.connect), welcome: LatencySummary(merged.welcome), join: LatencySummary(merged.join),
            sent: merged.sent, received: merged.received, acked: merged.acked, expected: nil,
            lost: merged.lost, duplicated: merged.duplicated, outOfOrder: merged.outOfOrder, foreign: merged.foreign,
            otherBroadcasts: merged.otherBroadcasts, lateRequests: merged.lateRequests, retries: merged.retries, connectFailures: merged.connectFailures,
            deliveriesPerSecond: (Double(merged.received) / window).rounded(), deliveryWindowSeconds: (window * 100).rounded() / 100,
            steadyDeliveriesPerSecond: Self.steady(merged.seconds, from: Int(o.ramp.rounded(.up)), to: Int(o.duration) - 1),
            errors: merged.errors, closes: merged.closes,
            sessions: SessionCounts(
                slots: o.sessions, playersPerSession: o.players, connected: connected, hosted: counts.hosted, joins: joins,
                endedGoalReached: counts.endedGoal, endedByHost: counts.endedHost, endedOther: counts.endedOther,
                unfinished: unfinished, connectionsWithLoss: withLoss, connectionsWithDuplicates: withDup, problemConnections: problem),
            idle: nil,
            server: RunReport.server(pid: o.serverPid, samples: samples, from: origin + nanos(seconds: o.ramp), to: plan.speakEnd,
                                     window: "steady state: end of ramp to end of speaking"),
            loadtestCpuPct: (loadCPU * 10).rounded() / 10,
            timeline: RunReport.timeline(merged.seconds, origin: origin, samples: samples),
            notes: notes)
        report.loadtestLoopLag = merged.loopLag.totalCount > 0 ? LatencySummary(merged.loopLag) : nil
        let sinceOrigin = Double(Int64(bitPattern: monotonicNanos() &- origin)) / 1e9
        report.timelineOriginUnix = ((Date().timeIntervalSince1970 - sinceOrigin) * 1000).rounded() / 1000
        return report
    }

    static func steady(_ seconds: [SecondBucket], from: Int, to: Int) -> Double? {
        guard to >= from, seconds.count > to else { return nil }
        let total = seconds[from...to].reduce(0) { $0 + $1.deliveries }
        return (Double(total) / Double(to - from + 1)).rounded()
    }

    /// The fan-out latency of the whole seconds `from...to` (the steady state), if the run has them.
    static func steadyLatency(_ seconds: [SecondBucket], from: Int, to: Int) -> LatencySummary? {
        guard to >= from, seconds.count > to else { return nil }
        var merged = makeLatencyHistogram(digits: .two)
        for bucket in seconds[from...to] { merged.add(bucket.latency) }
        return merged.totalCount > 0 ? LatencySummary(merged) : nil
    }

    static func sleep(until t: UInt64) async {
        let now = monotonicNanos()
        if t > now { try? await Task.sleep(nanoseconds: t - now) }
    }

    /// Players matching `predicate`, each read on its own loop.
    static func count(_ players: [any LoadPlayer], loops: [any EventLoop], where predicate: @escaping @Sendable (any LoadPlayer) -> Bool) async -> Int {
        var total = 0
        for loop in loops {
            let mine = players.filter { $0.loop === loop }
            total += (try? await loop.submit { mine.filter(predicate).count }.get()) ?? 0
        }
        return total
    }
}

/// Loopback-only targets.
enum Loopback {
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// Ends the process if a run overstays its bound (every wait is bounded; this is the backstop).
enum Watchdog {
    static func start(at deadline: UInt64, what: String) {
        let thread = Thread {
            while monotonicNanos() < deadline { Thread.sleep(forTimeInterval: 0.5) }
            FileHandle.standardError.write(Data("sessionhub-loadtest: \(what) exceeded its time bound; exiting\n".utf8))
            exit(3)
        }
        thread.start()
    }
}
