import Synchronization
import WebSocketTransport

/// The authenticated `/ws` connections of each user, so that news about a user (a session
/// saved to their history) reaches every device they have open.
final class UserChannels: Sendable {
    private let sockets = Mutex<[String: [UInt64: WebSocketSocket]]>([:])

    init() {}

    /// Registers an authenticated connection.
    func add(_ socket: WebSocketSocket, of userId: String) {
        sockets.withLock { $0[userId, default: [:]][socket.id] = socket }
    }

    /// Forgets a connection once it closed.
    func remove(_ socket: WebSocketSocket, of userId: String) {
        sockets.withLock { all in
            all[userId]?[socket.id] = nil
            if all[userId]?.isEmpty == true { all[userId] = nil }
        }
    }

    /// Sends `text` to every open connection of `userId`.
    func send(_ text: String, to userId: String) {
        let targets = sockets.withLock { Array(($0[userId] ?? [:]).values) }
        for socket in targets { socket.send(text: text) }
    }

    /// How many users have at least one connection.
    var userCount: Int { sockets.withLock { $0.count } }
}
