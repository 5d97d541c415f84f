import Foundation
import NIOCore
import NIOPosix
import Synchronization
import WebSocket
import WebSocketTransport

/// Options of `sessionhub-loadtest idle`.
struct IdleOptions: Sendable {
    var url: String
    var connections: Int
    var tokenCommand: String?
    var tokenCache: String?
    var users: Int
    var userPrefix: String
    var hold: Double
    var parallel: Int
    var serverPid: Int32?
    var threads: Int
    var deflate: Bool
}

/// One idle connection. Lives on its event loop.
final class IdleMember: WebSocketEndpoint, @unchecked Sendable {
    let recorder: Recorder
    let loop: any EventLoop
    let connectStart: UInt64
    let expectsWelcome: Bool
    private(set) var socket: WebSocketSocket?
    private(set) var authenticated = false
    private(set) var closed = false
    private(set) var dropped = false
    private var closingByUs = false

    init(recorder: Recorder, loop: any EventLoop, connectStart: UInt64, expectsWelcome: Bool) {
        self.recorder = recorder
        self.loop = loop
        self.connectStart = connectStart
        self.expectsWelcome = expectsWelcome
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        self.socket = socket
        recorder.connect.record(Recorder.micros(connectStart, monotonicNanos()))
        if !expectsWelcome { authenticated = true }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        guard expectsWelcome, !authenticated, case .text(let buffer) = message else { return }
        let isWelcome = buffer.withUnsafeReadableBytes { JSONScan(bytes: $0).stringEquals(after: "{\"type\":\"", "welcome") }
        if isWelcome {
            authenticated = true
            recorder.welcome.record(Recorder.micros(connectStart, monotonicNanos()))
        }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        closed = true
        self.socket = nil
        if !closingByUs {
            dropped = true
            let text = code.map { "\($0.rawValue)" } ?? "1006"
            recorder.close(reason.isEmpty ? text : "\(text) \(reason.prefix(60))")
        }
    }

    func connectFailed(_ error: any Error) {
        closed = true
        recorder.connectFailures += 1
        recorder.error("connect: \(SessionPlayer.short(error))")
    }

    func closeNow() {
        closingByUs = true
        if let socket { socket.close(code: .normalClosure, reason: "") } else { closed = true }
    }
}

/// The `idle` mode: N idle connections held open, the server's RSS per connection.
struct IdleRun {
    let options: IdleOptions
    let log: @Sendable (String) -> Void

    func run() async throws -> RunReport {
        let o = options
        let url = try WebSocketURL(parsing: o.url)
        guard Loopback.isLoopback(url.host) else { throw LoadTestFailure.setup("refusing non-loopback target \(url.host)") }
        let path = String(url.target.split(separator: "?").first ?? "/")
        let authenticated = path == "/ws"
        var minted: [String] = []
        if authenticated {
            guard let command = o.tokenCommand else { throw LoadTestFailure.setup("/ws needs --token-cmd") }
            let count = max(1, min(o.users, o.connections))
            let users = (1...count).map { n in (id: "\(o.userPrefix)-\(n)", name: "\(o.userPrefix.capitalized) \(n)") }
            minted = try TokenCache(command: command, cacheFile: o.tokenCache).tokens(for: users, log: log)
        }
        let limits = FileLimits.raiseToHard()
        var notes: [String] = []
        if UInt64(o.connections) + 64 > limits.soft {
            notes.append("this process may open at most \(limits.soft) files (hard limit \(limits.hard)); \(o.connections) connections need more")
        }
        let serverLimit = o.serverPid.flatMap { FileLimits.softLimit(ofPid: $0) }
        if let serverLimit, o.connections + 32 > serverLimit {
            notes.append("the server process may open at most \(serverLimit) files: connections beyond about \(serverLimit - 32) cannot be accepted")
        }
        notes.forEach(log)

        let tokens = minted
        let group = MultiThreadedEventLoopGroup(numberOfThreads: o.threads)
        let loops = Array(group.makeIterator())
        let wallStart = monotonicNanos()
        let recorders = loops.map { _ in Recorder(origin: wallStart) }
        let hardStop = wallStart + nanos(seconds: 240 + o.hold)
        Watchdog.start(at: hardStop + 10_000_000_000, what: "idle run")
        let sampler = o.serverPid.map { ProcessSampler(pid: $0) }
        sampler?.start(interval: 1)
        try? await Task.sleep(nanoseconds: 1_000_000_000)
        let before = sampler?.sampleNow()

        let compression = o.deflate ? PerMessageDeflateConfiguration.default : PerMessageDeflateConfiguration(isEnabled: false)
        let next = SharedCounter()
        let registry = SharedList<IdleMember>()
        let rampStart = monotonicNanos()
        let connectDeadline = rampStart + 180_000_000_000
        log("opening \(o.connections) idle connections to \(o.url), \(o.parallel) handshakes at a time")
        await withTaskGroup(of: Void.self) { tasks in
            for _ in 0..<max(1, min(o.parallel, o.connections)) {
                tasks.addTask {
                    while true {
                        let i = next.next()
                        guard i < o.connections, monotonicNanos() < connectDeadline else { return }
                        let loopIndex = i % loops.count
                        let member = IdleMember(recorder: recorders[loopIndex], loop: loops[loopIndex], connectStart: monotonicNanos(), expectsWelcome: authenticated)
                        registry.append(member)
                        var headers: [(name: String, value: String)] = []
                        if authenticated { headers.append((name: "Authorization", value: "Bearer \(tokens[i % tokens.count])")) }
                        let configuration = WebSocketClientConfiguration(compression: compression, headers: headers)
                        do {
                            _ = try await WebSocketClient.connect(to: url, configuration: configuration, group: loops[loopIndex]) { member }
                        } catch {
                            loops[loopIndex].execute { member.connectFailed(error) }
                        }
                        if (i + 1) % 5000 == 0 { log("  \(i + 1) connects attempted") }
                    }
                }
            }
        }
        let members = registry.all
        // Wait (≤ 10 s) for the welcomes.
        let welcomeUntil = monotonicNanos() + 10_000_000_000
        var counts = await Self.counts(members, loops: loops)
        while counts.authenticated + counts.closed < members.count, monotonicNanos() < welcomeUntil {
            try? await Task.sleep(nanoseconds: 100_000_000)
            counts = await Self.counts(members, loops: loops)
        }
        let rampSeconds = Double(monotonicNanos() - rampStart) / 1e9
        log("\(counts.open) open, \(counts.authenticated) authenticated after \(String(format: "%.1f", rampSeconds)) s; holding \(o.hold) s")
        try? await Task.sleep(nanoseconds: 2_000_000_000)
        let with = sampler?.sampleNow()
        let openWith = counts.authenticated
        let holdUntil = min(monotonicNanos() + nanos(seconds: max(0, o.hold - 2)), hardStop - 20_000_000_000)
        await SessionsRun.sleep(until: holdUntil)
        let atEnd = await Self.counts(members, loops: loops)
        let end = sampler?.sampleNow()
        for member in members { member.loop.execute { member.closeNow() } }
        let closeUntil = min(monotonicNanos() + 15_000_000_000, hardStop)
        while monotonicNanos() < closeUntil {
            if await Self.counts(members, loops: loops).closed >= members.count { break }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        sampler?.stop()
        let merged = Recorder(origin: wallStart)
        for (i, loop) in loops.enumerated() {
            let recorder = recorders[i]
            try await loop.submit { merged.merge(recorder) }.get()
        }
        try? await group.shutdownGracefully()
        let wallEnd = monotonicNanos()
        var kib: Double?
        if let before, let with, openWith > 0 {
            kib = (Double(with.rssKiB - before.rssKiB) / Double(openWith) * 100).rounded() / 100
        }
        let idle = IdleSummary(
            path: path, requested: o.connections, opened: counts.open + counts.closedEarly, authenticated: counts.authenticated,
            failed: merged.connectFailures, droppedDuringHold: atEnd.dropped, openAtEnd: atEnd.open,
            rampSeconds: (rampSeconds * 100).rounded() / 100, holdSeconds: o.hold,
            serverRssBeforeKiB: before?.rssKiB, serverRssWithKiB: with?.rssKiB, serverRssEndKiB: end?.rssKiB,
            kibPerConnection: kib, serverFdLimit: serverLimit, loadtestFdLimit: limits.soft,
            loadtestRssKiB: ProcReader.read(pid: getpid())?.rssKiB)
        return RunReport(
            mode: "idle", startedAt: RunReport.isoNow(), url: o.url,
            parameters: ["connections": "\(o.connections)", "hold_s": "\(o.hold)", "parallel": "\(o.parallel)",
                         "users": "\(authenticated ? max(1, min(o.users, o.connections)) : 0)", "deflate": "\(o.deflate)"],
            wallSeconds: (Double(wallEnd - wallStart) / 1e7).rounded() / 100,
            fanout: LatencySummary(makeLatencyHistogram()), steadyFanout: nil, percentiles: [],
            connect: LatencySummary(merged.connect), welcome: authenticated ? LatencySummary(merged.welcome) : nil, join: nil,
            sent: 0, received: 0, acked: nil, expected: nil, lost: 0, duplicated: 0, outOfOrder: 0, foreign: 0,
            otherBroadcasts: nil, lateRequests: nil, retries: nil, connectFailures: merged.connectFailures,
            deliveriesPerSecond: 0, deliveryWindowSeconds: 0, steadyDeliveriesPerSecond: nil, errors: merged.errors, closes: merged.closes,
            sessions: nil, idle: idle,
            server: RunReport.server(pid: o.serverPid, samples: sampler?.all ?? [], from: rampStart, to: monotonicNanos(),
                                     window: "whole run"),
            loadtestCpuPct: 0, timeline: [], notes: notes)
    }

    struct Counts: Sendable {
        var open = 0
        var authenticated = 0
        var closed = 0
        var closedEarly = 0
        var dropped = 0
    }

    static func counts(_ members: [IdleMember], loops: [any EventLoop]) async -> Counts {
        var total = Counts()
        for loop in loops {
            let mine = members.filter { $0.loop === loop }
            let c = (try? await loop.submit { () -> Counts in
                var c = Counts()
                for m in mine {
                    if m.socket != nil { c.open += 1 }
                    if m.authenticated && m.socket != nil { c.authenticated += 1 }
                    if m.closed { c.closed += 1 }
                    if m.dropped { c.dropped += 1; c.closedEarly += 1 }
                }
                return c
            }.get()) ?? Counts()
            total.open += c.open
            total.authenticated += c.authenticated
            total.closed += c.closed
            total.closedEarly += c.closedEarly
            total.dropped += c.dropped
        }
        return total
    }
}
