/// Every client message `type` the hub understands: the one list of them. The decoder switches
/// over it (so each type has a decoding), ``ClientRequest/type`` maps back to it, and
/// docs/PROTOCOL.md section 6 is checked against it by a test.
public enum ClientMessageType: String, Sendable, CaseIterable {
    case auth
    case hello
    case scenarios
    case ping
    case startSolo
    case host
    case join
    case resume
    case say
    case recast
    case acceptRecast
    case leave
    case end
    case profile
    case updateProfile
    case history
    case historySession
}
