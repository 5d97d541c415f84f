// The consumer program of scripts/client-consumer-test.sh: an app-like package outside the repo
// that depends on SessionHubClient by version and plays a 3-player session over wss://.
// Environment: HUB_URL (wss://…/ws), CA_FILE (PEM to trust), TOKEN_ANA, TOKEN_BEN, TOKEN_CLEO.
import Foundation
import NIOSSL
import SessionHubClient

func env(_ name: String) -> String {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        FileHandle.standardError.write(Data("consumer: \(name) is not set\n".utf8))
        exit(2)
    }
    return value
}

func check(_ condition: Bool, _ what: String) {
    if !condition {
        FileHandle.standardError.write(Data("consumer: FAILED: \(what)\n".utf8))
        exit(1)
    }
}

var tls = TLSConfiguration.makeClientConfiguration()
tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(env("CA_FILE")))
let url = env("HUB_URL")
let ana = try SessionHubClient(url: url, tls: tls) { env("TOKEN_ANA") }
let ben = try SessionHubClient(url: url, tls: tls) { env("TOKEN_BEN") }
let cleo = try SessionHubClient(url: url, tls: tls) { env("TOKEN_CLEO") }
for client in [ana, ben, cleo] { try await client.connect() }

let scenario = try await ana.scenarios().first { $0.maxPlayers >= 3 }
guard let scenario else { check(false, "a scenario for three"); exit(1) }
let hosted = try await ana.host(scenarioId: scenario.id)
guard let code = hosted.joinCode else { check(false, "a join code"); exit(1) }
_ = try await ben.join(code: code)
_ = try await cleo.join(code: code)
_ = try await ana.say("Guten Tag!", translation: "Good day!")
let line = try await ben.say("Wo ist der Bahnhof", translation: "Where is the station")
let recast = try await cleo.recast(lineId: line.id, correctedText: "Wo ist der Bahnhof, bitte?",
                                   explanation: "Polite and a question mark", issueTypes: [.naturalness])
try await ben.acceptRecast(recast.id)
let ended = try await ana.end()
check(ended.participants.count == 3, "three participants in ended")

// Every member's model ends identical.
let final = await ana.session
for other in [ben, cleo] {
    var model = await other.session
    for _ in 0..<1500 where model?.seq != final?.seq {
        try await Task.sleep(for: .milliseconds(10))
        model = await other.session
    }
    check(model == final, "the same model for every member")
}
check(final?.lines.count == 2 && final?.recasts.first?.accepted == true, "two lines and an accepted recast")
for client in [ana, ben, cleo] { await client.close() }
print("consumer: 3 players over \(url): \(final?.lines.count ?? 0) lines, 1 recast accepted, ended (\(ended.cause)), seq \(final?.seq ?? 0)")
