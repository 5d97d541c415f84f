import NIOCore

extension String {
    /// Whether this is an IPv4 or IPv6 address rather than a host name (TLS sends no SNI for
    /// an address).
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
