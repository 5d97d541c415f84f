import Foundation
import HubDomain
import NIOCore
import NIOPosix
import Synchronization
import WebSocket
import WebSocketTransport

/// Options of `sessionhub-loadtest rooms`.
struct RoomsOptions: Sendable {
    var url: String
    var rooms: Int
    var members: Int
    var duration: Double
    var rate: Double
    var size: Int
    var parallel: Int
    var settle: Double
    var drain: Double
    var serverPid: Int32?
    var threads: Int
    var label: String
    var seed: UInt64
}

/// One member of a room of the peers' relay protocol (`/room/<name>`, every text message to every
/// member, the sender included). Messages are `"<send ns> <room> <sender> <seq> <padding>"`, as
/// the peers' Go load generator sends them, and are checked the same way: own room, in order per
/// sender. Lives on its event loop.
final class RoomMember: WebSocketEndpoint, @unchecked Sendable {
    let room: Int
    let seat: Int
    let members: Int
    let loop: any EventLoop
    let recorder: Recorder
    private(set) var socket: WebSocketSocket?
    private(set) var closed = false
    private var closingByUs = false
    private var lastSeq: [Int]
    private let connectStart: UInt64
    private(set) var sent = 0
    private var timer: Scheduled<Void>?

    init(room: Int, seat: Int, members: Int, loop: any EventLoop, recorder: Recorder, connectStart: UInt64) {
        self.room = room
        self.seat = seat
        self.members = members
        self.loop = loop
        self.recorder = recorder
        self.connectStart = connectStart
        lastSeq = Array(repeating: -1, count: members)
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        self.socket = socket
        recorder.connect.record(Recorder.micros(connectStart, monotonicNanos()))
    }

    func connectFailed(_ error: any Error) {
        closed = true
        recorder.connectFailures += 1
        recorder.error("connect: \(SessionPlayer.short(error))")
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        closed = true
        timer?.cancel()
        self.socket = nil
        if !closingByUs {
            let text = code.map { "\($0.rawValue)" } ?? "1006"
            recorder.close(reason.isEmpty ? text : "\(text) \(reason.prefix(60))")
        }
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        let now = monotonicNanos()
        guard case .text(let buffer) = message else {
            recorder.foreign += 1
            return
        }
        buffer.withUnsafeReadableBytes { raw in
            let scan = JSONScan(bytes: raw)
            guard let stamp = scan.integer(at: 0), let room = scan.integer(at: stamp.end + 1),
                  let sender = scan.integer(at: room.end + 1), let seq = scan.integer(at: sender.end + 1) else {
                recorder.foreign += 1
                return
            }
            guard room.value == self.room, sender.value < members else {
                recorder.foreign += 1
                return
            }
            let last = lastSeq[sender.value]
            if seq.value <= last {
                if seq.value == last { recorder.duplicated += 1 } else { recorder.outOfOrder += 1 }
                return
            }
            lastSeq[sender.value] = seq.value
            recorder.delivery(sentAt: UInt64(stamp.value), now: now)
        }
    }

    private struct SendPlan {
        var start: UInt64
        var offset: UInt64
        var interval: UInt64
        var count: Int
        var stop: UInt64
        var padding: String
    }

    private var sendPlan: SendPlan?

    /// Sends `count` messages, message s at `start + offset + s * interval`, none after `stop`.
    func startSending(start: UInt64, offset: UInt64, interval: UInt64, count: Int, stop: UInt64, padding: String) {
        sendPlan = SendPlan(start: start, offset: offset, interval: interval, count: count, stop: stop, padding: padding)
        schedule(0)
    }

    private func schedule(_ s: Int) {
        guard let plan = sendPlan, s < plan.count, !closed else { return }
        let at = plan.start + plan.offset + UInt64(s) * plan.interval
        timer = loop.scheduleTask(deadline: deadline(atNanos: at)) { [self] in
            let now = monotonicNanos()
            guard now < plan.stop, let socket else { return }
            socket.send(text: "\(now) \(room) \(seat) \(s) \(plan.padding)")
            sent += 1
            recorder.sentOne(now: now)
            schedule(s + 1)
        }
    }

    func closeNow() {
        closingByUs = true
        timer?.cancel()
        if let socket { socket.close(code: .normalClosure, reason: "") } else { closed = true }
    }
}

/// The `rooms` mode: the peers' room-relay benchmark, measured with this tool's instrument.
struct RoomsRun {
    let options: RoomsOptions
    let log: @Sendable (String) -> Void

    func run() async throws -> RunReport {
        let o = options
        guard o.rooms > 0, o.members > 0, o.rate > 0, o.duration > 0 else {
            throw LoadTestFailure.setup("--rooms, --members, --rate and --duration must be positive")
        }
        let base = try WebSocketURL(parsing: o.url)
        guard Loopback.isLoopback(base.host) else { throw LoadTestFailure.setup("refusing non-loopback target \(base.host)") }
        // ws://host:port/room → /room/<name>; ws://host:port[/] → /room/<name>
        var path = base.target
        if let q = path.firstIndex(of: "?") { path = String(path[..<q]) }
        while path.hasSuffix("/") { path.removeLast() }
        if !path.hasSuffix("/room") { path += "/room" }
        let prefix = path
        let runId = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let url: @Sendable (Int) -> WebSocketURL = { room in
            var u = base
            u.target = "\(prefix)/lt-\(runId)-\(room)"
            return u
        }

        FileLimits.raiseToHard()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: o.threads)
        let loops = Array(group.makeIterator())
        let wallStart = monotonicNanos()
        let origin = wallStart
        let recorders = loops.map { _ in Recorder(origin: origin) }
        let perClient = Int((o.rate * o.duration).rounded())
        let total = o.rooms * o.members
        let hardStop = wallStart + nanos(seconds: o.duration + o.settle + o.drain + 90)
        Watchdog.start(at: hardStop + 10_000_000_000, what: "rooms run")
        let sampler = o.serverPid.map { ProcessSampler(pid: $0) }
        sampler?.start()

        // Connect everyone, `parallel` handshakes at a time.
        let configuration = WebSocketClientConfiguration(compression: PerMessageDeflateConfiguration(isEnabled: false))
        var members: [RoomMember] = []
        let next = SharedCounter()
        let connected = SharedCounter()
        let registry = SharedList<(Int, RoomMember)>()
        log("connecting \(total) members (\(o.rooms) rooms x \(o.members))")
        await withTaskGroup(of: Void.self) { tasks in
            for _ in 0..<max(1, min(o.parallel, total)) {
                tasks.addTask {
                    while true {
                        let i = next.next()
                        guard i < total, monotonicNanos() < hardStop else { return }
                        let loopIndex = i % loops.count
                        let member = RoomMember(room: i / o.members, seat: i % o.members, members: o.members,
                                                loop: loops[loopIndex], recorder: recorders[loopIndex], connectStart: monotonicNanos())
                        do {
                            _ = try await WebSocketClient.connect(to: url(member.room), configuration: configuration, group: member.loop) { member }
                            _ = connected.next()
                            registry.append((i, member))
                        } catch {
                            member.loop.execute { member.connectFailed(error) }
                            registry.append((i, member))
                        }
                    }
                }
            }
        }
        members = registry.all.sorted { $0.0 < $1.0 }.map(\.1)
        var membersPerRoom = Array(repeating: 0, count: o.rooms)
        for member in members where await member.loop.submit({ member.socket != nil }).getOrFalse() {
            membersPerRoom[member.room] += 1
        }
        log("\(connected.current)/\(total) connected; settling \(o.settle) s, then \(o.rate) msg/s per member for \(o.duration) s")
        try? await Task.sleep(nanoseconds: nanos(seconds: o.settle))

        // Send.
        let start = monotonicNanos() + 50_000_000
        let interval = UInt64(1e9 / o.rate)
        let stop = start + nanos(seconds: o.duration + o.drain)
        let padding = String(repeating: "p", count: max(1, o.size - 40))
        var rng = SplitMix64(seed: o.seed)
        for member in members {
            let offset = rng.next() % max(interval, 1)
            member.loop.execute { member.startSending(start: start, offset: offset, interval: interval, count: perClient, stop: stop, padding: padding) }
        }
        let cpuServer0 = start
        let selfCPUStart = ProcReader.selfCPUSeconds()
        await SessionsRun.sleep(until: start + nanos(seconds: o.duration) + 20_000_000)
        // Wait for the last sends (late timers), then drain.
        let sendEnd = monotonicNanos()
        let selfCPUSending = (ProcReader.selfCPUSeconds() - selfCPUStart) / (Double(sendEnd - start) / 1e9) * 100
        var sentPerRoom = Array(repeating: 0, count: o.rooms)
        var expected = 0
        let drainUntil = min(sendEnd + nanos(seconds: o.drain), hardStop)
        var received = 0
        while true {
            sentPerRoom = Array(repeating: 0, count: o.rooms)
            for member in members {
                let sent = (try? await member.loop.submit { member.sent }.get()) ?? 0
                sentPerRoom[member.room] += sent
            }
            expected = zip(sentPerRoom, membersPerRoom).reduce(0) { $0 + $1.0 * $1.1 }
            received = 0
            for (i, loop) in loops.enumerated() {
                let recorder = recorders[i]
                received += (try? await loop.submit { recorder.received + recorder.duplicated + recorder.outOfOrder }.get()) ?? 0
            }
            if received >= expected || monotonicNanos() >= drainUntil { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        let cpuServerEnd = monotonicNanos()
        sampler?.sampleNow()
        for member in members { member.loop.execute { member.closeNow() } }
        let closeUntil = min(monotonicNanos() + 5_000_000_000, hardStop)
        while monotonicNanos() < closeUntil {
            var open = 0
            for member in members { if !((try? await member.loop.submit { member.closed }.get()) ?? true) { open += 1 } }
            if open == 0 { break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        sampler?.stop()
        let wallEnd = monotonicNanos()
        let merged = Recorder(origin: origin)
        for (i, loop) in loops.enumerated() {
            let recorder = recorders[i]
            try await loop.submit { merged.merge(recorder) }.get()
        }
        try? await group.shutdownGracefully()
        let samples = sampler?.all ?? []
        let lastDelivery = merged.lastDeliveryAt > 0 ? merged.lastDeliveryAt : sendEnd
        let window = max(0.001, Double(min(lastDelivery, cpuServerEnd) - start) / 1e9)
        var server = RunReport.server(pid: o.serverPid, samples: samples, from: cpuServer0, to: cpuServerEnd,
                                      window: "sending start to drain end, per second of --duration")
        // As the peers' bench.sh: server CPU seconds over the mode divided by the sending seconds.
        if let cpu = server?.cpuSeconds { server?.cpuPct = (cpu / o.duration * 1000).rounded() / 10 }
        let lost = expected - merged.received
        var notes: [String] = []
        if lost == 0 && merged.duplicated == 0 && merged.outOfOrder == 0 && merged.foreign == 0 {
            notes.append("every message reached every member of its room exactly once, in order per sender")
        }
        return RunReport(
            mode: "rooms", startedAt: RunReport.isoNow(), url: o.url,
            parameters: [
                "label": o.label, "rooms": "\(o.rooms)", "members": "\(o.members)", "rate_msgs_per_s": "\(o.rate)",
                "duration_s": "\(o.duration)", "size": "\(o.size)", "threads": "\(o.threads)",
                "offered_deliveries_per_s": String(format: "%.0f", Double(total) * o.rate * Double(o.members)),
            ],
            wallSeconds: (Double(wallEnd - wallStart) / 1e7).rounded() / 100,
            fanout: LatencySummary(merged.fanout), steadyFanout: nil, percentiles: RunReport.percentilePoints(merged.fanout),
            connect: LatencySummary(merged.connect), welcome: nil, join: nil,
            sent: merged.sent, received: merged.received, acked: nil, expected: expected,
            lost: lost, duplicated: merged.duplicated, outOfOrder: merged.outOfOrder, foreign: merged.foreign,
            otherBroadcasts: nil, lateRequests: nil, retries: nil, connectFailures: merged.connectFailures,
            deliveriesPerSecond: (Double(merged.received) / window).rounded(), deliveryWindowSeconds: (window * 100).rounded() / 100, steadyDeliveriesPerSecond: nil,
            errors: merged.errors, closes: merged.closes, sessions: nil, idle: nil, server: server,
            loadtestCpuPct: (selfCPUSending * 10).rounded() / 10, timeline: RunReport.timeline(merged.seconds, origin: origin, samples: samples), notes: notes)
    }
}

extension EventLoopFuture where Value == Bool {
    func getOrFalse() async -> Bool { (try? await get()) ?? false }
}
