import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One reading of a process from `/proc/PID`.
struct ProcReading: Sendable {
    /// When it was taken (monotonic ns).
    var at: UInt64
    /// utime + stime, seconds.
    var cpuSeconds: Double
    /// VmRSS, KiB.
    var rssKiB: Int
    /// Threads.
    var threads: Int
    /// The whole machine from /proc/stat, all cores, seconds: busy (not idle or iowait), steal.
    var machineBusySeconds: Double = 0
    var machineStealSeconds: Double = 0
    /// This load generator's own CPU, seconds.
    var selfCPUSeconds: Double = 0
}

/// Reads `/proc/PID/stat` and `/proc/PID/status` (Linux only).
enum ProcReader {
    static let ticksPerSecond: Double = {
        let value = sysconf(Int32(_SC_CLK_TCK))
        return value > 0 ? Double(value) : 100
    }()

    /// The process's CPU time and RSS now, or nil when it is gone.
    static func read(pid: Int32) -> ProcReading? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "pid (comm) ": state is field 3; utime 14, stime 15 (1-based).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        var rss = 0
        var threads = 0
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                if line.hasPrefix("VmRSS:") {
                    rss = Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
                } else if line.hasPrefix("Threads:") {
                    threads = Int(line.dropFirst(8).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
                }
            }
        }
        var reading = ProcReading(at: monotonicNanos(), cpuSeconds: (utime + stime) / ticksPerSecond, rssKiB: rss, threads: threads)
        if let machine = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
           let first = machine.split(separator: "\n").first, first.hasPrefix("cpu ") {
            let v = first.split(separator: " ").dropFirst().compactMap { Double($0) }
            if v.count >= 8 {
                // user nice system idle iowait irq softirq steal
                reading.machineBusySeconds = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / ticksPerSecond
                reading.machineStealSeconds = v[7] / ticksPerSecond
            }
        }
        reading.selfCPUSeconds = selfCPUSeconds()
        return reading
    }

    /// This process's own CPU time (user + system), seconds.
    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Samples a server process once per `interval` in the background, for the timeline and the
/// CPU and RSS figures of a run.
final class ProcessSampler: Sendable {
    let pid: Int32
    private let readings = Mutex<[ProcReading]>([])
    private let stopped = Mutex<Bool>(false)

    init(pid: Int32) {
        self.pid = pid
    }

    /// Starts sampling on a background thread until ``stop()``.
    func start(interval: Double = 0.5) {
        if let first = ProcReader.read(pid: pid) { readings.withLock { $0.append(first) } }
        let thread = Thread { [self] in
            while !stopped.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: interval)
                guard let reading = ProcReader.read(pid: pid) else { continue }
                readings.withLock { $0.append(reading) }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Takes one reading now (and keeps it).
    @discardableResult
    func sampleNow() -> ProcReading? {
        guard let reading = ProcReader.read(pid: pid) else { return nil }
        readings.withLock { $0.append(reading) }
        return reading
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    var all: [ProcReading] { readings.withLock { $0 }.sorted { $0.at < $1.at } }
}

/// File descriptor limit helpers.
enum FileLimits {
    /// Raises the soft RLIMIT_NOFILE to the hard limit; returns (soft, hard) after.
    @discardableResult
    static func raiseToHard() -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return (0, 0) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// The soft limit of another process, from /proc/PID/limits.
    static func softLimit(ofPid pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 5 { return Int(parts[3]) }
        }
        return nil
    }
}
