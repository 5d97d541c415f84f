import HubDomain
import HubProtocol

extension BotTable {
    /// Waits until every connected player has had all its requests answered and all have applied
    /// the same last seq, for a few looks in a row: nothing is in flight.
    func settle() async throws {
        var previous: [Int] = []
        var stable = 0
        try await Poll.until("the players to settle", timeout: .seconds(10), every: .milliseconds(20)) { () async -> Bool? in
            var seqs: [Int] = []
            var idle = true
            for player in players {
                guard await player.isConnected else { continue }
                seqs.append(await player.lastSeq)
                if await !player.isIdle { idle = false }
            }
            let quiet = idle && Set(seqs).count <= 1
            stable = quiet && seqs == previous ? stable + 1 : 0
            previous = seqs
            return stable >= 3 ? true : nil
        }
    }

    /// Drops seat `seat`'s connection (its client stays away until ``resume(_:)``) and waits until
    /// it is closed and the others saw it go.
    func drop(_ seat: Int) async throws {
        let player = players[seat]
        printer.note("· \(await player.userId) drops its connection at seq \(await player.lastSeq)")
        await player.drop()
        try await Poll.until("\(player.label)'s connection to close", timeout: .seconds(10)) { () async -> Bool? in
            await player.isConnected ? nil : true
        }
        let gone = PresenceChange(userId: await player.userId, kind: .disconnected)
        let others = players.indices.filter { $0 != seat }.map { players[$0] }
        try await Poll.until("the others to see \(player.label) disconnected", timeout: .seconds(10)) { () async -> Bool? in
            for other in others {
                if await !other.hasSeen(gone) { return nil }
            }
            return true
        }
    }

    /// Lets seat `seat` come back: its client reconnects and resumes from its last seq by itself
    /// (following the seat to its node); waits for `resumed` and the whole replay, which the
    /// player checks.
    func resume(_ seat: Int) async throws {
        let player = players[seat]
        var othersSeq = 0
        for (index, other) in players.enumerated() where index != seat {
            if await other.isConnected { othersSeq = max(othersSeq, await other.lastSeq) }
        }
        guard await player.resume(othersSeq: othersSeq) else { throw BotFailure.check("\(player.label) was not dropped: nothing to resume") }
        try await Poll.until("\(player.label)'s resume and replay", timeout: .seconds(10)) { () async throws -> Bool? in
            if let refusal = await player.resumeRefusal { throw BotFailure.check("\(player.label)'s resume was refused: \(refusal)") }
            guard await player.resumeFinished else { return nil }
            return await player.isConnected ? true : nil
        }
    }
}
