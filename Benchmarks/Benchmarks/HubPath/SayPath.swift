// The sessions the `say` benchmarks play in, and the one measured step: a client's `say` text in,
// one delivery per member out (six in a 6-player session).
import Foundation
import HubDomain
import HubProtocol
import SessionHubClient

/// A hub wired as `sessionhub serve` wires it for one node, minus the sockets and the durable
/// storage: the real scenario catalogue and `HubConfiguration` defaults, the system clock,
/// ``BenchBroadcastEncoder`` (the server's encoder), an ``InMemorySessionJournal`` and the other
/// in-memory ports. Six players (two, for comparison) share one "Town Hall Meeting" session (the
/// built-in scenario that seats six), each on a ``CountingLink``, and say lines in turn.
///
/// The scenario's goal is 30 lines, and the line that reaches it ends the session (history save,
/// `ended`). So each session takes 29 lines; before the 30th the host ends it and a new one is
/// hosted and joined by code, outside the measured part (``next()``, ``nextSession()``). Every
/// measured `say` is therefore an ordinary line, at every transcript length a real session goes
/// through (0–28 earlier lines).
///
/// The server's per-connection limits (`HubConnectionLimits`: 40 requests / 20 per s, 10 lines /
/// 5 per s) are token buckets checked before dispatch; the benchmark keeps one pair per player
/// and checks them the same way, raised to 10⁹ so that none refuses. The domain itself limits
/// lines per session (`maxLinesPerSession`, 1000), which 29 never reaches. Any refusal, and any
/// say that is not delivered exactly once to each member, stops the run (fatalError).
final class SayPath {
    static let scenarioId = "town-hall-meeting"
    /// Raised limits of the per-connection token buckets (burst and per-second rate).
    static let raisedLimit = 1_000_000_000

    /// One prepared `say`: who sends it and its JSON text, as the connection's worker receives it.
    struct Say {
        let player: Int
        let userId: String
        let text: String
        let ref: String
        let session: LiveSession
    }

    /// Players in each session: 6, or fewer for comparison.
    let players: Int
    let hub: Hub
    let journal = InMemorySessionJournal()
    let clock = SystemHubClock()
    let decoder = ClientMessageDecoder()
    /// Whether every member negotiated permessage-deflate (and so takes the compressed frame).
    let deflateMembers: Bool
    let scenario: Scenario
    /// Lines per session: one short of the scenario's goal.
    let linesPerSession: Int
    /// The current session's players: new users for each session, so that no user's known words
    /// (which grow with every session they end) make one session's bookkeeping differ from another's.
    private(set) var users: [HubUser] = []

    private var session: LiveSession?
    private var links: [CountingLink] = []
    private var roles: [String] = []
    private var requestBuckets: [TokenBucket] = []
    private var lineBuckets: [TokenBucket] = []
    /// The one rate of every bucket here (raised: the benchmark measures the path, not the limit).
    private let bucketRate = TokenBucket.Rate(capacity: SayPath.raisedLimit, ratePerSecond: Double(SayPath.raisedLimit))
    private var linesInSession = 0
    private var deliveredBefore: [Int] = []
    private var compressedBefore: [Int] = []
    /// `say`s sent so far (warm-up included); numbers `clientId` and the request id.
    private(set) var sent = 0
    /// Sessions hosted so far.
    private(set) var sessionsStarted = 0

    /// - Parameters:
    ///   - compression: the server's `compression` setting (default on): whether broadcasts carry
    ///     a compressor.
    ///   - deflateMembers: whether the members negotiated permessage-deflate.
    ///   - players: players per session, 2 to 6.
    init(compression: Bool, deflateMembers: Bool, players: Int = 6) throws {
        self.players = players
        let catalog = try ScenarioCatalog.load()
        guard let scenario = catalog.scenario(id: Self.scenarioId), scenario.maxPlayers >= players, players >= 2 else {
            fatalError("the built-in catalogue has no \(Self.scenarioId) scenario for \(players) players")
        }
        self.scenario = scenario
        linesPerSession = scenario.goal.lines - 1
        self.deflateMembers = deflateMembers
        let ports = HubPorts(clock: clock, encoder: BenchBroadcastEncoder(compression: compression), journal: journal)
        hub = Hub(catalog: catalog, configuration: HubConfiguration(), ports: ports)
        requestBuckets = Array(repeating: TokenBucket(full: bucketRate), count: players)
        lineBuckets = requestBuckets
    }

    // MARK: Not measured

    /// The next `say`: player 1, 2, …, 6, 1, … in turn, each line a hint of the player's role
    /// with a counter, as the bot and the load test send them (`BotLineScript`, `clientId`
    /// `line-N`). Starts a new session first when the current one has had its 29 lines.
    func next() async -> Say {
        if session == nil || linesInSession == linesPerSession { await startSession() }
        let say = makeSay()
        noteCounts()
        return say
    }

    /// A new session and all of its 29 lines, to be said one after the other.
    func nextSession() async -> [Say] {
        await startSession()
        let says = (0..<linesPerSession).map { _ in makeSay() }
        noteCounts()
        return says
    }

    /// The scenario's hints round-robin, each tagged with `counter` so every line is distinct
    /// (the bot's lines look the same).
    static func line(of scenario: Scenario, counter: Int) -> (textNative: String, textTranslated: String) {
        guard !scenario.hints.isEmpty else { return ("… (\(counter))", "… (\(counter))") }
        let hint = scenario.hints[counter % scenario.hints.count]
        return ("\(hint.textNative) (\(counter))", "\(hint.textTranslated) (\(counter))")
    }

    private func makeSay() -> Say {
        guard let session else { fatalError("no session") }
        let player = sent % players
        sent += 1
        let line = Self.line(of: scenario, counter: sent)
        let ref = "say-\(sent)"
        let text = ClientMessageEncoder.encode(.say(textNative: line.textNative, textTranslated: line.textTranslated,
                                                    clientId: "line-\(sent)"), id: ref)
        return Say(player: player, userId: users[player].id, text: text, ref: ref, session: session)
    }

    private func noteCounts() {
        deliveredBefore = links.map(\.delivered)
        compressedBefore = links.map(\.deliveredCompressed)
    }

    /// Checks that `says` (in order, since ``next()`` or ``nextSession()``) were journaled as lines
    /// of their speakers and each delivered exactly once to each member (compressed
    /// once and shared, when they negotiated deflate), and that the session goes on.
    func verify(_ says: [Say]) async {
        guard let session = says.first?.session else { return }
        for (index, link) in links.enumerated() {
            guard link.delivered == deliveredBefore[index] + says.count else {
                fatalError("member \(index + 1) got \(link.delivered - deliveredBefore[index]) deliveries for \(says.count) says")
            }
            if deflateMembers, link.deliveredCompressed != compressedBefore[index] + says.count {
                fatalError("member \(index + 1) did not get the compressed frame of every say")
            }
        }
        let entries = journal.entries(of: session.id).suffix(says.count)
        guard entries.count == says.count else { fatalError("the journal is missing lines") }
        for (say, entry) in zip(says, entries) {
            linesInSession += 1
            guard case .line(let line, let ref) = entry.event, line.speakerId == say.userId, ref == say.ref,
                  line.id == "l\(linesInSession)" else {
                fatalError("say \(say.ref) is not journaled as line \(linesInSession) of \(say.userId)")
            }
        }
        if await session.isOver { fatalError("the session ended after \(linesInSession) lines") }
    }

    /// Ends the current session (if any) and hosts a new one that the other players join by code.
    func startSession() async {
        await endSession()
        let number = sessionsStarted + 1
        users = (1...players).map { HubUser(id: "s\(number)-player-\($0)", displayName: "Player \($0)") }
        links = (0..<players).map { _ in CountingLink(deflate: deflateMembers) }
        do throws(HubError) {
            let hosted = try await hub.host(user: users[0], scenarioId: Self.scenarioId, maxPlayers: players,
                                            link: links[0], ref: "host")
            guard let code = hosted.joinCode else { fatalError("a shared session without a join code") }
            for index in 1..<players {
                let joined = try await hub.join(user: users[index], code: code, address: nil, link: links[index], ref: "join")
                guard joined === hosted else { fatalError("player \(index + 1) joined another session") }
            }
            let participants = await hosted.participants()
            roles = users.map { user in
                guard let info = participants.first(where: { $0.userId == user.id }) else {
                    fatalError("\(user.id) is not in the session")
                }
                return info.roleName
            }
            session = hosted
        } catch {
            fatalError("starting session \(sessionsStarted + 1) failed: \(error)")
        }
        guard links.allSatisfy({ $0.replied == 1 }) else { fatalError("a member got no joined reply") }
        linesInSession = 0
        sessionsStarted += 1
    }

    /// The host ends the current session (its history save and `ended` happen here, unmeasured).
    func endSession() async {
        guard let current = session else { return }
        session = nil
        do throws(HubError) {
            try await current.end(by: users[0].id, ref: "end")
        } catch {
            fatalError("ending a session failed: \(error)")
        }
        if await !current.isOver { fatalError("the session did not end") }
    }

    // MARK: Measured

    /// What the server does with one `say` text from the connection's worker on: the clock, the
    /// decode, the request bucket, the dispatch to the session with the line bucket, and
    /// `LiveSession.say`, which returns once the line is journaled and delivered to every member.
    func perform(_ say: Say) async {
        let now = clock.now()
        let message: ClientMessage
        switch decoder.decode(say.text) {
        case .success(let decoded): message = decoded
        case .failure(let error): fatalError("say \(say.ref) does not decode: \(error)")
        }
        guard requestBuckets[say.player].take(now: now, rate: bucketRate) else { fatalError("say \(say.ref): request rate limit") }
        guard case .say(let native, let translated, let clientId) = message.request else {
            fatalError("say \(say.ref) decoded as \(message.request.type)")
        }
        guard lineBuckets[say.player].take(now: now, rate: bucketRate) else { fatalError("say \(say.ref): line rate limit") }
        do throws(HubError) {
            try await say.session.say(userId: say.userId, textNative: native, textTranslated: translated,
                                      clientId: clientId, ref: message.id)
        } catch {
            fatalError("say \(say.ref) was refused: \(error)")
        }
    }
}
