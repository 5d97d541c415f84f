/// A phase of a connection's HTTP exchange that has its own deadline (see
/// ``ConnectionPolicy/requestHeadTimeout``, ``ConnectionPolicy/requestBodyTimeout``
/// and ``ConnectionPolicy/keepAliveTimeout``); the raw value is the metric label.
public enum HTTPPhase: String, Sendable, CaseIterable {
    /// Waiting for a request head to complete.
    case head
    /// Waiting for a request body to complete.
    case body
    /// Waiting, on a keep-alive connection, for the first byte of the next request.
    case idle
}
