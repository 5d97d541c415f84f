/// Why the server refused a connection; the raw value is the metric label.
public enum ConnectionRefusal: String, Sendable, CaseIterable {
    /// The server held ``WebSocketServerConfiguration/maxConnections`` (closed on accept).
    case maxConnections = "max_connections"
    /// The client's address held ``ConnectionPolicy/maxConnectionsPerAddress``.
    case perAddress = "per_address"
    /// The client's address held ``ConnectionPolicy/maxUnauthenticatedConnectionsPerAddress``
    /// connections that were in the HTTP phase or had not authenticated yet.
    case unauthenticatedPerAddress = "unauthenticated_per_address"
    /// The user held as many authenticated connections as the endpoint allows
    /// (``WebSocketSocket/authenticate(as:limit:)``).
    case perUser = "per_user"
}
