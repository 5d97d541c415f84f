import HubDomain
import Synchronization

/// Resume tokens that can be verified without memory (as the server's HMAC tokens can):
/// `<sessionId>/<userId>/<n>`. Good enough for the domain's tests; not secret.
final class SigningResumeTokens: ResumeTokenIssuer {
    private let counter = Atomic<Int>(0)

    func issue(sessionId: String, userId: String) -> String {
        "\(sessionId)/\(userId)/\(counter.add(1, ordering: .relaxed).newValue)"
    }

    func verify(_ token: String, sessionId: String, userId: String) -> Bool {
        token.hasPrefix("\(sessionId)/\(userId)/")
    }
}
