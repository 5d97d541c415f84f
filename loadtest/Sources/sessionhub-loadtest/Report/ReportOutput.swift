import Foundation

/// The stdout table of a run (markdown, so it pastes into README.md as it is).
enum SummaryTable {
    static func render(_ r: RunReport) -> String {
        var rows: [(String, String)] = []
        func ms(_ v: Double) -> String { String(format: "%.3f", v) }
        func lat(_ s: LatencySummary) -> String {
            "\(ms(s.p50)) / \(ms(s.p90)) / \(ms(s.p99)) / \(ms(s.p999)) / \(ms(s.max)) ms"
        }
        func p50p99(_ s: LatencySummary?) -> String {
            guard let s, s.count > 0 else { return "-" }
            return "\(ms(s.p50)) / \(ms(s.p99)) ms (n=\(s.count))"
        }
        let errors = r.errors.isEmpty ? "none" : r.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let closes = r.closes.isEmpty ? "none" : r.closes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        switch r.mode {
        case "idle":
            if let i = r.idle {
                rows.append(("connections asked / open / authenticated", "\(i.requested) / \(i.opened) / \(i.authenticated)"))
                rows.append(("failed / dropped while held / open at end", "\(i.failed) / \(i.droppedDuringHold) / \(i.openAtEnd)"))
                rows.append(("ramp, hold", String(format: "%.1f s, %.0f s", i.rampSeconds, i.holdSeconds)))
                rows.append(("connect p50 / p99", p50p99(r.connect)))
                if let w = r.welcome { rows.append(("welcome p50 / p99", p50p99(w))) }
                if let b = i.serverRssBeforeKiB, let w = i.serverRssWithKiB {
                    rows.append(("server RSS before / with / end", String(format: "%.1f / %.1f / %.1f MiB", Double(b) / 1024, Double(w) / 1024, Double(i.serverRssEndKiB ?? 0) / 1024)))
                }
                rows.append(("server KiB per idle connection", i.kibPerConnection.map { String(format: "%.2f", $0) } ?? "-"))
                if let l = i.serverFdLimit { rows.append(("server open-file limit", "\(l)")) }
                if let k = i.loadtestRssKiB { rows.append(("load test RSS", String(format: "%.1f MiB", Double(k) / 1024))) }
            }
        default:
            rows.append(("fan-out latency p50 / p90 / p99 / p99.9 / max", lat(r.fanout)))
            if let steady = r.steadyFanout {
                rows.append(("steady-state fan-out p50 / p90 / p99 / p99.9 / max", lat(steady)))
            }
            if let steady = r.steadyDeliveriesPerSecond {
                rows.append(("deliveries/s: steady state / whole run", String(format: "%.0f / %.0f (over %.1f s)", steady, r.deliveriesPerSecond, r.deliveryWindowSeconds)))
            } else {
                rows.append(("deliveries/s", String(format: "%.0f (over %.2f s)", r.deliveriesPerSecond, r.deliveryWindowSeconds)))
            }
            if let offered = r.parameters["offered_deliveries_per_s"] { rows.append(("offered deliveries/s", offered)) }
            if let acked = r.acked {
                rows.append(("lines sent / acknowledged / late", "\(r.sent) / \(acked) / \(r.lateRequests ?? 0)"))
            } else {
                rows.append(("messages sent", "\(r.sent)"))
            }
            rows.append(("deliveries received" + (r.expected != nil ? " / expected" : ""),
                         "\(r.received)" + (r.expected.map { " / \($0)" } ?? "")))
            if let other = r.otherBroadcasts { rows.append(("other broadcasts received (participants, stats, ended)", "\(other)")) }
            var integrity = "lost \(r.lost), duplicated \(r.duplicated)"
            if r.outOfOrder > 0 { integrity += ", out of order \(r.outOfOrder)" }
            if r.foreign > 0 { integrity += ", foreign \(r.foreign)" }
            if let s = r.sessions { integrity += " (connections with loss \(s.connectionsWithLoss), with duplicates \(s.connectionsWithDuplicates))" }
            rows.append(("lost / duplicated", integrity))
            rows.append(("connect p50 / p99", p50p99(r.connect)))
            if let w = r.welcome { rows.append(("welcome p50 / p99", p50p99(w))) }
            if let j = r.join { rows.append(("host/join → joined p50 / p99", p50p99(j))) }
            if let s = r.sessions {
                rows.append(("connections / sessions hosted / joins", "\(s.connected) / \(s.hosted) / \(s.joins)"))
                rows.append(("sessions ended: goal / host end / other / unfinished", "\(s.endedGoalReached) / \(s.endedByHost) / \(s.endedOther) / \(s.unfinished)"))
                if let retries = r.retries, retries > 0 { rows.append(("host/join retried after already_in_session", "\(retries)")) }
            }
        }
        rows.append(("errors by code", errors))
        rows.append(("unexpected closes", closes))
        if r.connectFailures > 0 { rows.append(("connect failures", "\(r.connectFailures)")) }
        if let s = r.server {
            rows.append(("server CPU", s.cpuPct.map { String(format: "%.1f %% of one core (%@)", $0, s.cpuWindow) } ?? "-"))
            rows.append(("server RSS start / peak / end",
                         String(format: "%.1f / %.1f / %.1f MiB", s.rssStartMiB ?? 0, s.rssPeakMiB ?? 0, s.rssEndMiB ?? 0)))
            if let busy = s.machineBusyPct {
                rows.append(("machine CPU: all busy / steal / other processes",
                             String(format: "%.0f / %.1f / %.1f %% of one core (same window)", busy, s.machineStealPct ?? 0, s.otherProcessesPct ?? 0)))
            }
        }
        if r.mode != "idle" { rows.append(("load test CPU", String(format: "%.1f %% of one core", r.loadtestCpuPct))) }
        if let lag = r.loadtestLoopLag {
            rows.append(("load test loop lag p50 / p99 / p99.9 / max (its own share of the tail)",
                         String(format: "%.2f / %.2f / %.2f / %.2f ms", lag.p50, lag.p99, lag.p999, lag.max)))
        }
        var out = "sessionhub-loadtest \(r.mode) \(r.url): " + r.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "\n\n"
        out += "| metric | value |\n|---|---|\n"
        for (k, v) in rows { out += "| \(k) | \(v) |\n" }
        for note in r.notes { out += "\nnote: \(note)" }
        return out + "\n"
    }
}

/// A self-contained HTML report: the summary table and inline SVG charts.
enum HTMLReport {
    struct Series {
        var name: String
        var color: String
        var points: [(Double, Double)]
    }

    static func render(_ r: RunReport) -> String {
        var body = "<h1>sessionhub-loadtest \(esc(r.mode))</h1>\n<p>\(esc(r.url)) · \(esc(r.startedAt)) · wall \(r.wallSeconds) s</p>\n"
        body += "<p class=params>" + r.parameters.sorted { $0.key < $1.key }.map { "<b>\(esc($0.key))</b>=\(esc($0.value))" }.joined(separator: " · ") + "</p>\n"
        body += markdownTableToHTML(SummaryTable.render(r))
        if !r.percentiles.isEmpty {
            let measured = r.percentiles.filter { $0.percentile < 100 }.map { (xOfPercentile($0.percentile), $0.ms) }
            let top = max(1, (measured.map(\.0).max() ?? 1).rounded(.up))
            let points = measured + [(top, r.fanout.max)]
            let ticks: [(Double, String)] = [(0, "0%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "99.999%"), (6, "99.9999%")]
                .filter { $0.0 <= top }
            body += chart(title: "Fan-out latency by percentile", yLabel: "ms", series: [Series(name: "latency", color: "#1f77b4", points: points)],
                          xTicks: ticks, xLabel: "percentile")
        }
        if !r.timeline.isEmpty {
            body += chart(title: "Deliveries and sends per second", yLabel: "per second",
                          series: [Series(name: "deliveries/s", color: "#2ca02c", points: r.timeline.map { (Double($0.second), Double($0.deliveries)) }),
                                   Series(name: "sends/s", color: "#ff7f0e", points: r.timeline.map { (Double($0.second), Double($0.sends)) })],
                          xTicks: nil, xLabel: "seconds since start (1 s buckets, by receive time)")
            body += chart(title: "Latency per second", yLabel: "ms",
                          series: [Series(name: "p99", color: "#9467bd", points: r.timeline.map { (Double($0.second), $0.p99Ms) }),
                                   Series(name: "max", color: "#d62728", points: r.timeline.map { (Double($0.second), $0.maxMs) })],
                          xTicks: nil, xLabel: "seconds since start")
            let cpu = r.timeline.compactMap { p in p.serverCpuPct.map { (Double(p.second), $0) } }
            let rss = r.timeline.compactMap { p in p.serverRssMiB.map { (Double(p.second), $0) } }
            let other = r.timeline.compactMap { p in p.otherCpuPct.map { (Double(p.second), $0) } }
            if !cpu.isEmpty {
                body += chart(title: "CPU (% of one core): the server, and other processes on the machine", yLabel: "%",
                              series: [Series(name: "server", color: "#8c564b", points: cpu),
                                       Series(name: "other processes", color: "#7f7f7f", points: other)],
                              xTicks: nil, xLabel: "seconds since start")
                body += chart(title: "Server RSS", yLabel: "MiB", series: [Series(name: "RSS MiB", color: "#17becf", points: rss)],
                              xTicks: nil, xLabel: "seconds since start")
            }
        }
        body += "<details><summary>raw JSON</summary><pre>\(esc(jsonText(r)))</pre></details>\n"
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>sessionhub-loadtest \(esc(r.mode))</title>
        <style>
        body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;max-width:1000px;color:#222}
        table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}
        th{background:#f3f3f3}.params{color:#555;font-size:13px}svg{background:#fff;border:1px solid #ddd;margin:1em 0}
        pre{font-size:11px;background:#f7f7f7;padding:1em;overflow:auto;max-height:400px}.note{color:#555}
        </style></head><body>
        \(body)
        </body></html>
        """
    }

    /// x position of a percentile on the usual HDR scale: log10(1 / (1 − p)).
    static func xOfPercentile(_ p: Double) -> Double {
        let q = min(max(1 - p / 100, 1e-6), 1)
        return log10(1 / q)
    }

    static func chart(title: String, yLabel: String, series: [Series], xTicks: [(Double, String)]?, xLabel: String) -> String {
        let width = 900.0, height = 320.0, left = 70.0, right = 20.0, top = 36.0, bottom = 50.0
        let all = series.flatMap(\.points)
        guard !all.isEmpty else { return "" }
        let xMin = xTicks?.first?.0 ?? (all.map(\.0).min() ?? 0)
        let xMax = max((xTicks?.last?.0 ?? (all.map(\.0).max() ?? 1)), xMin + 1e-9)
        let yMaxRaw = max(all.map(\.1).max() ?? 1, 1e-9)
        let yMax = niceCeiling(yMaxRaw)
        func px(_ x: Double) -> Double { left + (x - xMin) / (xMax - xMin) * (width - left - right) }
        func py(_ y: Double) -> Double { top + (1 - y / yMax) * (height - top - bottom) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
        svg += "<text x=\"\(left)\" y=\"22\" font-size=\"15\" font-weight=\"bold\">\(esc(title))</text>\n"
        // y grid
        for i in 0...5 {
            let y = yMax * Double(i) / 5
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(py(y)))\" x2=\"\(f(width - right))\" y2=\"\(f(py(y)))\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(py(y) + 4))\" font-size=\"11\" text-anchor=\"end\">\(label(y))</text>\n"
        }
        // x ticks
        let ticks = xTicks ?? autoTicks(xMin, xMax).map { ($0, label($0)) }
        for (x, text) in ticks {
            svg += "<line x1=\"\(f(px(x)))\" y1=\"\(f(top))\" x2=\"\(f(px(x)))\" y2=\"\(f(height - bottom))\" stroke=\"#f2f2f2\"/>"
            svg += "<text x=\"\(f(px(x)))\" y=\"\(f(height - bottom + 16))\" font-size=\"11\" text-anchor=\"middle\">\(esc(text))</text>\n"
        }
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(height - bottom))\" x2=\"\(f(width - right))\" y2=\"\(f(height - bottom))\" stroke=\"#888\"/>"
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(height - bottom))\" stroke=\"#888\"/>\n"
        svg += "<text x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 12))\" font-size=\"12\" text-anchor=\"middle\">\(esc(xLabel))</text>"
        svg += "<text x=\"16\" y=\"\(f((top + height - bottom) / 2))\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f((top + height - bottom) / 2)))\">\(esc(yLabel))</text>\n"
        for (i, s) in series.enumerated() {
            let path = s.points.map { "\(f(px($0.0))),\(f(py($0.1)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"1.8\" points=\"\(path)\"/>\n"
            svg += "<rect x=\"\(f(width - right - 150))\" y=\"\(f(top + 4 + Double(i) * 16))\" width=\"10\" height=\"10\" fill=\"\(s.color)\"/>"
            svg += "<text x=\"\(f(width - right - 135))\" y=\"\(f(top + 13 + Double(i) * 16))\" font-size=\"12\">\(esc(s.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func autoTicks(_ a: Double, _ b: Double) -> [Double] {
        let step = niceCeiling((b - a) / 8)
        guard step > 0 else { return [a] }
        var ticks: [Double] = []
        var x = (a / step).rounded(.up) * step
        while x <= b + 1e-9 && ticks.count < 20 { ticks.append(x); x += step }
        return ticks
    }

    static func niceCeiling(_ v: Double) -> Double {
        guard v > 0 else { return 1 }
        let e = pow(10, floor(log10(v)))
        for m in [1.0, 2, 2.5, 5, 10] where m * e >= v { return m * e }
        return 10 * e
    }

    static func label(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e9 { return String(Int(v)) }
        return String(format: v < 1 ? "%.3f" : "%.1f", v)
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func markdownTableToHTML(_ text: String) -> String {
        var html = ""
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                if line.hasPrefix("|---") { continue }
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if !inTable {
                    html += "<table>\n<tr>" + cells.map { "<th>\(esc($0))</th>" }.joined() + "</tr>\n"
                    inTable = true
                } else {
                    html += "<tr>" + cells.map { "<td>\(esc($0))</td>" }.joined() + "</tr>\n"
                }
            } else {
                if inTable { html += "</table>\n"; inTable = false }
                if line.hasPrefix("note:") { html += "<p class=note>\(esc(String(line)))</p>\n" }
            }
        }
        if inTable { html += "</table>\n" }
        return html
    }

    static func jsonText(_ r: RunReport) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(r)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
