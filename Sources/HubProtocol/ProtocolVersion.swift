/// The wire protocol's version. A client may state the version it speaks in `hello`; the hub
/// answers with `welcome` carrying this number, or `unsupported_version`.
public enum ProtocolVersion {
    /// The version this build speaks.
    public static let current = 1
    /// The WebSocket subprotocol name a client may offer.
    public static let subprotocol = "sessionhub.v1"
}
