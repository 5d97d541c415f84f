// Steps of the `say` path alone, for information: the client message's decode, the vocabulary
// count of the line (`WordTokenizer`, called by `LiveSession.record`) and the broadcast's encode
// (and its compression). They show how much of the whole they are.
import Benchmark
import Foundation
import HubDomain
import HubProtocol
import SessionHubClient

func registerPartBenchmarks() {
    // The texts a session sees: 29 different lines of the "Town Hall Meeting" hints, as in SayPath.
    let scenario: Scenario = {
        guard let scenario = try? ScenarioCatalog.load().scenario(id: SayPath.scenarioId) else {
            fatalError("no \(SayPath.scenarioId) scenario")
        }
        return scenario
    }()
    let lines = (1...29).map { SayPath.line(of: scenario, counter: $0) }
    let texts = lines.enumerated().map { index, line in
        ClientMessageEncoder.encode(.say(textNative: line.textNative, textTranslated: line.textTranslated,
                                         clientId: "line-\(index + 1)"), id: "say-\(index + 1)")
    }
    let envelopes = lines.enumerated().map { index, line in
        SessionEnvelope(sessionId: "5f0c2a9e4b7d41c3a8e6f1029d3b7c55", seq: 7 + index,
                        event: .line(DialogLine(id: "l\(index + 1)", speakerId: "player-\(index % 6 + 1)",
                                                roleName: scenario.role(forSeat: index), textNative: line.textNative,
                                                textTranslated: line.textTranslated, timestamp: 1_795_392_000_000,
                                                clientId: "line-\(index + 1)"),
                                     ref: "say-\(index + 1)"))
    }
    let encoder = BenchBroadcastEncoder(compression: true)
    if ProcessInfo.processInfo.environment["HUBPATH_FIXTURE_STATS"] != nil {
        describe(texts: texts, envelopes: envelopes, encoder: encoder)
    }

    var next = 0
    Benchmark("Part: decode one say (ClientMessageDecoder)") { benchmark in
        for _ in benchmark.scaledIterations {
            let text = texts[next % texts.count]
            next &+= 1
            benchmark.startMeasurement()
            guard case .success(let message) = ClientMessageDecoder().decode(text) else { fatalError("decode failed") }
            blackHole(message)
        }
    }
    Benchmark("Part: split one line into words (WordTokenizer, as LiveSession.record does)") { benchmark in
        for _ in benchmark.scaledIterations {
            let line = lines[next % lines.count]
            next &+= 1
            benchmark.startMeasurement()
            blackHole(WordTokenizer.words(in: line.textNative))
        }
    }
    Benchmark("Part: encode one line broadcast once (ServerMessageEncoder + PreparedFrame)") { benchmark in
        for _ in benchmark.scaledIterations {
            let envelope = envelopes[next % envelopes.count]
            next &+= 1
            benchmark.startMeasurement()
            blackHole(encoder.encode(envelope))
        }
    }
    Benchmark("Part: encode one line broadcast once and compress it (first deflate member)") { benchmark in
        for _ in benchmark.scaledIterations {
            let envelope = envelopes[next % envelopes.count]
            next &+= 1
            benchmark.startMeasurement()
            guard let broadcast = encoder.encode(envelope) as? BenchBroadcast,
                  let compressed = broadcast.frame.compressedBytes else { fatalError("not compressed") }
            blackHole(compressed)
        }
    }
}

/// Sizes of the test messages, on standard error (with `HUBPATH_FIXTURE_STATS=1`).
private func describe(texts: [String], envelopes: [SessionEnvelope], encoder: BenchBroadcastEncoder) {
    let textBytes = texts.map(\.utf8.count)
    let frames = envelopes.compactMap { encoder.encode($0) as? BenchBroadcast }
    let plain = frames.map(\.frame.bytes.readableBytes)
    let compressed = frames.compactMap { $0.frame.compressedBytes?.readableBytes }
    func range(_ values: [Int]) -> String { "\(values.min() ?? 0)–\(values.max() ?? 0) B (mean \(values.reduce(0, +) / max(1, values.count)))" }
    HubPathReport.note("say texts \(range(textBytes)); line broadcast frames \(range(plain)), compressed \(range(compressed))")
    HubPathReport.note("example say: \(texts[0])")
}
