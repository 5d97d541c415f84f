import HubDomain
import Synchronization

/// A model of the shared store of a cluster (what PostgreSQL holds): sessions with their owner
/// node and epoch, their journal entries, and every user's one seat. Each node sees it through
/// ``node(_:)``: a journal fenced by the epochs that node holds, and a directory.
final class InMemoryCluster: Sendable {
    struct StoredSession {
        var header: SessionHeader
        var owner: String?
        var epoch: Int
        var open = true
    }

    struct State {
        var nodes: [String: NodeLocation] = [:]
        var sessions: [String: StoredSession] = [:]
        var order: [String] = []
        var entries: [String: [JournalEntry]] = [:]
        var seats: [String: String] = [:]
    }

    let state = Mutex(State())

    init() {}

    /// The view of node `id` (created on first use).
    func node(_ id: String) -> Node {
        let location = NodeLocation(nodeId: id, publicURL: "ws://front/node/\(id)/ws")
        state.withLock { $0.nodes[id] = location }
        return Node(cluster: self, location: location)
    }

    /// What a survivor does when `dead` stops answering: takes every open session `dead` owns,
    /// bumping its epoch, so `dead` can no longer write to it. Returns the headers claimed.
    func claimSessions(of dead: String, by survivor: Node) -> [SessionHeader] {
        let claimed = state.withLock { state -> [(SessionHeader, Int)] in
            var claimed: [(SessionHeader, Int)] = []
            for id in state.order {
                guard var stored = state.sessions[id], stored.open, stored.owner == dead else { continue }
                stored.owner = survivor.location.nodeId
                stored.epoch += 1
                state.sessions[id] = stored
                claimed.append((stored.header, stored.epoch))
            }
            return claimed
        }
        for (header, epoch) in claimed { survivor.hold(header.sessionId, epoch: epoch) }
        return claimed.map(\.0)
    }

    /// Journal entries of a session, in the order they were stored.
    func entries(of sessionId: String) -> [JournalEntry] { state.withLock { $0.entries[sessionId] ?? [] } }

    /// One node's view: its journal (fenced by the epochs it holds) and directory.
    final class Node: RecoverableJournal, SessionDirectory {
        let cluster: InMemoryCluster
        let location: NodeLocation
        private let epochs = Mutex<[String: Int]>([:])

        init(cluster: InMemoryCluster, location: NodeLocation) {
            self.cluster = cluster
            self.location = location
        }

        var local: NodeLocation { location }

        func hold(_ sessionId: String, epoch: Int) { epochs.withLock { $0[sessionId] = epoch } }

        // MARK: Journal

        func opened(_ header: SessionHeader) async throws {
            let epoch = epochs.withLock { $0[header.sessionId] }
            try cluster.state.withLock { state in
                guard let stored = state.sessions[header.sessionId] else {
                    state.sessions[header.sessionId] = StoredSession(header: header, owner: location.nodeId, epoch: 1)
                    state.order.append(header.sessionId)
                    return
                }
                guard stored.owner == location.nodeId, stored.epoch == epoch else {
                    throw JournalFailure.fenced(sessionId: header.sessionId)
                }
            }
            if epoch == nil { hold(header.sessionId, epoch: 1) }
        }

        func append(_ entry: JournalEntry) async throws {
            let epoch = epochs.withLock { $0[entry.sessionId] }
            try cluster.state.withLock { state in
                guard let stored = state.sessions[entry.sessionId], stored.owner == location.nodeId,
                      stored.epoch == epoch else {
                    throw JournalFailure.fenced(sessionId: entry.sessionId)
                }
                state.entries[entry.sessionId, default: []].append(entry)
            }
        }

        func closed(sessionId: String) async {
            cluster.state.withLock { $0.sessions[sessionId]?.open = false }
        }

        func openSessions() async throws -> [SessionHeader] {
            cluster.state.withLock { state in
                state.order.compactMap { id in
                    guard let stored = state.sessions[id], stored.open, stored.owner == location.nodeId else { return nil }
                    return stored.header
                }
            }
        }

        func entries(sessionId: String) async throws -> [JournalEntry] { cluster.entries(of: sessionId) }

        // MARK: Directory

        func register(_ header: SessionHeader) async throws -> Bool {
            let listed = cluster.state.withLock { state -> Bool in
                if let code = header.joinCode,
                   state.sessions.values.contains(where: { $0.open && $0.header.joinCode == code }) { return false }
                state.sessions[header.sessionId] = StoredSession(header: header, owner: location.nodeId, epoch: 1)
                state.order.append(header.sessionId)
                return true
            }
            if listed { hold(header.sessionId, epoch: 1) }
            return listed
        }

        func locate(joinCode: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                guard let stored = state.sessions.values.first(where: { $0.open && $0.header.joinCode == joinCode }) else { return nil }
                return SessionPlacement(sessionId: stored.header.sessionId, owner: stored.owner.flatMap { state.nodes[$0] })
            }
        }

        func seat(of userId: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                guard let id = state.seats[userId], let stored = state.sessions[id], stored.open else { return nil }
                return SessionPlacement(sessionId: id, owner: stored.owner.flatMap { state.nodes[$0] })
            }
        }

        func reserveSeat(userId: String, sessionId: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                if let id = state.seats[userId], id != sessionId, let stored = state.sessions[id], stored.open {
                    return SessionPlacement(sessionId: id, owner: stored.owner.flatMap { state.nodes[$0] })
                }
                state.seats[userId] = sessionId
                return nil
            }
        }

        func releaseSeat(userId: String, sessionId: String) async throws {
            cluster.state.withLock { state in
                if state.seats[userId] == sessionId { state.seats[userId] = nil }
            }
        }
    }
}
