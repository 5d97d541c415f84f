import HubDomain
import Foundation
import HubStorage
import PostgresNIO

/// A `postgres://` URL (`--database-url`, `SESSIONHUB_DATABASE_URL`), parsed and checked:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or over a Unix socket
/// `postgres://USER@/DATABASE?host=/run/postgresql` (the socket `/run/postgresql/.s.PGSQL.PORT`).
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var password: String?
    /// A host name or address; nil with a Unix socket.
    public var host: String?
    public var port: Int
    /// The directory of the Unix socket; nil over TCP.
    public var socketDirectory: String?
    public var database: String

    /// Parses `text`.
    /// - Throws: ``StorageError`` naming what is wrong (never the password).
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql" else {
            throw StorageError("database URL must look like postgres://user@host:5432/database")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StorageError("database URL names no user (postgres://USER@host/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw StorageError("database URL names no database (postgres://user@host/DATABASE)")
        }
        self.user = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw StorageError("database URL port \(port) is out of range") }
        let socket = components.queryItems?.first(where: { $0.name == "host" })?.value
        if let socket, socket.hasPrefix("/") {
            self.socketDirectory = socket
            self.host = nil
        } else if let host = components.host, !host.isEmpty {
            self.host = host
            self.socketDirectory = nil
        } else {
            throw StorageError("database URL names no host (postgres://user@HOST/database, or ?host=/socket/dir)")
        }
    }

    /// The URL without its password, for logs and errors.
    public var description: String {
        let location = host.map { "\($0):\(port)" } ?? ""
        let socket = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgres://\(user)\(password == nil ? "" : ":***")@\(location)/\(database)\(socket)"
    }

    /// The socket file of a Unix-socket URL.
    var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// For the pool.
    var clientConfiguration: PostgresClient.Configuration {
        if let socketPath {
            return PostgresClient.Configuration(unixSocketPath: socketPath, username: user, password: password,
                                                database: database)
        }
        return PostgresClient.Configuration(host: host ?? "localhost", port: port, username: user, password: password,
                                            database: database, tls: .disable)
    }

    /// For a connection of its own, outside the pool (the node's liveness proof, administration).
    public var connectionConfiguration: PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password,
                                                    database: database)
        }
        return PostgresConnection.Configuration(host: host ?? "localhost", port: port, username: user, password: password,
                                                database: database, tls: .disable)
    }
}
