import Foundation
import HubDomain
import Testing

/// Test users.
enum Users {
    static let alice = HubUser(id: "u-alice", displayName: "Alice")
    static let bob = HubUser(id: "u-bob", displayName: "Bob")
    static let carol = HubUser(id: "u-carol", displayName: "Carol")
    static let dave = HubUser(id: "u-dave", displayName: "Dave")
    static let erin = HubUser(id: "u-erin", displayName: "Erin")
}

/// Scenarios for tests, built from JSON exactly as a scenario file would be.
enum Fixtures {
    static let scenarioId = "test-cafe"
    static let language = "es"

    /// The JSON of a scenario file. The defaults follow every rule of docs/SCENARIOS.md
    /// (goal of 8 to 30 lines, 5 to 10 hints), so a test can break exactly one.
    static func scenarioJSON(id: String = scenarioId, title: String = "Test Café", language: String = language,
                             level: String = "A1", roles: [String] = ["Barista", "Customer"],
                             minPlayers: Int = 1, maxPlayers: Int = 4, goalLines: Int = 12,
                             hintRoles: [String]? = nil) -> String {
        let roleObjects = roles.map { #"{"name": "\#($0)", "description": "Plays \#($0)."}"# }
        let fiveHints = (0..<5).map { roles.isEmpty ? "" : roles[$0 % roles.count] }
        let hints = (hintRoles ?? fiveHints).map {
            #"{"roleName": "\#($0)", "textNative": "Hola", "textTranslated": "Hello"}"#
        }
        return """
        {
          "id": "\(id)",
          "title": "\(title)",
          "summary": "A test situation.",
          "targetLanguage": "\(language)",
          "level": "\(level)",
          "roles": [\(roleObjects.joined(separator: ", "))],
          "minPlayers": \(minPlayers),
          "maxPlayers": \(maxPlayers),
          "goal": {"lines": \(goalLines), "description": "Enough is said."},
          "hints": [\(hints.joined(separator: ", "))]
        }
        """
    }

    /// A 2-role, up-to-4-player scenario whose goal is `goalLines` lines.
    static func scenario(id: String = scenarioId, title: String = "Test Café", goalLines: Int = 100,
                         maxPlayers: Int = 4, roles: [String] = ["Barista", "Customer"]) -> Scenario {
        let json = scenarioJSON(id: id, title: title, roles: roles, maxPlayers: maxPlayers, goalLines: goalLines)
        do {
            return try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        } catch {
            fatalError("test scenario does not decode: \(error)")
        }
    }
}

/// A hub wired to in-memory, inspectable ports and a manual clock.
struct Harness {
    let clock: TestClock
    let encoder: TestEncoder
    let journal: InMemorySessionJournal
    let history: InMemoryHistoryWriter
    let learners: InMemoryLearnerRecords
    let scenario: Scenario
    let ports: HubPorts
    let hub: Hub

    /// - Parameters:
    ///   - premium: user ids for whom history is stored.
    ///   - journalOverride: a journal to use instead of ``journal``.
    ///   - historyOverride: a history writer to use instead of ``history``.
    init(goalLines: Int = 100, maxPlayers: Int = 4, configuration: HubConfiguration = HubConfiguration(),
         premium: Set<String> = [], journalOverride: (any SessionJournal)? = nil,
         historyOverride: (any HistoryWriter)? = nil, extraScenarios: [Scenario] = [],
         resumeTokens: any ResumeTokenIssuer = RandomResumeTokens(), directory: any SessionDirectory = SingleNodeDirectory(),
         executors: any SessionExecutors = SerialQueueSessionExecutors()) {
        clock = TestClock()
        encoder = TestEncoder()
        journal = InMemorySessionJournal()
        history = InMemoryHistoryWriter(isPremium: { premium.contains($0) })
        learners = InMemoryLearnerRecords()
        scenario = Fixtures.scenario(goalLines: goalLines, maxPlayers: maxPlayers)
        ports = HubPorts(clock: clock, encoder: encoder, journal: journalOverride ?? journal,
                         history: historyOverride ?? history, learners: learners, resumeTokens: resumeTokens, directory: directory,
                         executors: executors)
        hub = Hub(catalog: ScenarioCatalog([scenario] + extraScenarios), configuration: configuration, ports: ports)
    }

    /// A second hub on the same ports and catalogue: the process after a restart.
    func restarted() -> Hub {
        Hub(catalog: hub.catalog, configuration: hub.configuration, ports: ports)
    }

    func solo(_ user: HubUser = Users.alice, ref: String? = nil) async throws(HubError) -> Member {
        let link = RecordingLink()
        let session = try await hub.startSolo(user: user, scenarioId: scenario.id, link: link, ref: ref)
        return Member(user: user, link: link, session: session)
    }

    func host(_ user: HubUser = Users.alice, maxPlayers: Int? = nil, ref: String? = nil) async throws(HubError) -> Member {
        let link = RecordingLink()
        let session = try await hub.host(user: user, scenarioId: scenario.id, maxPlayers: maxPlayers, link: link, ref: ref)
        return Member(user: user, link: link, session: session)
    }

    func join(_ user: HubUser, code: String, ref: String? = nil) async throws(HubError) -> Member {
        let link = RecordingLink()
        let session = try await hub.join(user: user, code: code, link: link, ref: ref)
        return Member(user: user, link: link, session: session)
    }

    /// Alice hosts; the next `count - 1` of Bob, Carol, Dave, Erin join by code, in that order.
    func group(_ count: Int, maxPlayers: Int? = nil) async throws -> [Member] {
        let others = [Users.bob, Users.carol, Users.dave, Users.erin]
        let host = try await host(Users.alice, maxPlayers: maxPlayers)
        let code = try #require(host.session.joinCode)
        var members = [host]
        for user in others.prefix(count - 1) {
            members.append(try await join(user, code: code))
        }
        return members
    }
}

/// One participant's connection in a test.
struct Member {
    let user: HubUser
    let link: RecordingLink
    let session: LiveSession

    var id: String { user.id }
    /// The snapshot of the `joined` reply.
    var snapshot: SessionSnapshot? { link.joined?.snapshot }
    /// The resume token of the `joined` reply.
    var resumeToken: String? { link.joined?.resumeToken }

    func say(_ text: String, translated: String = "", ref: String? = nil) async throws(HubError) {
        try await session.say(userId: user.id, textNative: text, textTranslated: translated, ref: ref)
    }
}

/// The ``HubError`` a body throws, or nil when it succeeds. (Closures are inferred as throwing
/// `any Error` without the FullTypedThrows feature, hence the cast.)
func hubError(_ body: () async throws -> Void) async -> HubError? {
    do {
        try await body()
        return nil
    } catch let error as HubError {
        return error
    } catch {
        Issue.record("expected a HubError, got \(error)")
        return nil
    }
}

/// The code of the error a body throws, or nil when it succeeds.
func errorCode(_ body: () async throws -> Void) async -> HubError.Code? {
    await hubError(body)?.code
}
