// Client message decoding (HubProtocol): the decoder's one-pass fast path for plain messages
// against Foundation's JSONDecoder path it falls back to (issue 11: measure before switching).
import Benchmark
import Foundation
import HubProtocol

/// A `say` and a `recast` as the clients send them.
enum ProtocolFixture {
    static let say = Data(#"{"type":"say","id":"s41","textNative":"Je voudrais un café et un croissant, s'il vous plaît.","textTranslated":"I would like a coffee and a croissant, please.","clientId":"c-41"}"#.utf8)
    static let recast = Data(#"{"type":"recast","id":"r7","lineId":"l41","correctedText":"Je voudrais un café et un croissant, s'il vous plaît.","issueTypes":["grammar","vocabulary"],"explanation":"« voudrais » : le conditionnel est plus poli."}"#.utf8)
}

let benchmarks: @Sendable () -> Void = {
    let decoder = ClientMessageDecoder()
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                                warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))
    for (name, data) in [("say", ProtocolFixture.say), ("recast", ProtocolFixture.recast)] {
        Benchmark("Decode \(name): fast path (ClientMessageDecoder.decode)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(decoder.decode(data)) }
        }
        Benchmark("Decode \(name): Foundation JSONDecoder path", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(decoder.decodeWithFoundation(data)) }
        }
    }
}
