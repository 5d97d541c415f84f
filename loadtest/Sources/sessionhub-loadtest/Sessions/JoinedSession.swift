import HubProtocol
import NIOConcurrencyHelpers

/// What a seat takes from its `joined` answer: where the session's broadcasts continue, the join
/// code a host hands its slot's joiners, and the lines the seat speaks (its role's hints, every
/// hint when the role has none).
struct JoinedSession: Sendable {
    /// The snapshot's `seq`: broadcasts continue after it.
    var seq: Int
    /// The session's join code (nil for SOLO).
    var joinCode: String?
    /// The lines the seat speaks: (native, translated).
    var hints: [(String, String)]

    /// From a fully decoded snapshot (the client library's player, `--full-decode`, or the first
    /// join of a scenario and role).
    init(_ snapshot: ServerMessage.Snapshot) {
        seq = snapshot.seq
        joinCode = snapshot.joinCode
        hints = Self.hints(of: snapshot)
    }

    init(seq: Int, joinCode: String?, hints: [(String, String)]) {
        self.seq = seq
        self.joinCode = joinCode
        self.hints = hints
    }

    /// The hints a seat of `snapshot` speaks.
    static func hints(of snapshot: ServerMessage.Snapshot) -> [(String, String)] {
        let mine = snapshot.scenario.hints.filter { $0.roleName == snapshot.you.roleName }
        let hints = (mine.isEmpty ? snapshot.scenario.hints : mine).map { ($0.textNative, $0.textTranslated) }
        return hints.isEmpty ? [("Bonjour", "Hello")] : hints
    }
}

/// The few fields of a `joined` the lean player reads on every join: the scenario's hints are
/// the same for every session of a scenario and role, so they are decoded once
/// (``JoinedHintCache``) instead of with every snapshot, whose scenario, participants and
/// transcript make up most of the message.
struct LeanJoined: Decodable {
    struct Session: Decodable {
        struct Scenario: Decodable { var id: String }
        struct You: Decodable { var roleName: String }
        var sessionId: String
        var joinCode: String?
        var seq: Int
        var scenario: Scenario
        var you: You
    }

    var session: Session

    /// The cache's key for this session's hints.
    var hintKey: String { JoinedHintCache.key(scenario: session.scenario.id, role: session.you.roleName) }
}

/// The hints of each scenario and role seen so far, shared by every lean player of a run.
final class JoinedHintCache: Sendable {
    static let shared = JoinedHintCache()

    private let hints = NIOLockedValueBox<[String: [(String, String)]]>([:])

    /// The key of a scenario and role.
    static func key(scenario: String, role: String) -> String { scenario + "\u{0}" + role }

    /// The hints kept for `key`, if any.
    func hints(for key: String) -> [(String, String)]? {
        hints.withLockedValue { $0[key] }
    }

    /// Keeps `value` for `key`.
    func keep(_ value: [(String, String)], for key: String) {
        hints.withLockedValue { $0[key] = value }
    }
}
