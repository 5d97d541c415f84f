import HubDomain

/// Resume tokens that survive a restart: `<nonce>.<mac>`, where the MAC (HMAC-SHA256 under a key
/// derived from the hub's secret) binds the nonce to one seat (session id and user id).
///
/// While the hub runs, a seat still accepts only the token issued last (the domain compares
/// it); after a restart, a rebuilt seat accepts any token whose MAC checks out for it. A token
/// is useless without the same user's bearer token, since `resume` is only accepted on a
/// connection authenticated as that user.
public struct SignedResumeTokens: ResumeTokenIssuer {
    private let key: HMACSHA256.Key

    /// Derives the signing key from the hub's secret (distinct from the key of bearer tokens).
    public init(secret: [UInt8]) {
        key = HMACSHA256.Key(HMACSHA256.mac(key: secret, message: Array("sessionhub resume tokens v1".utf8)))
    }

    /// A fresh 96-bit nonce and its MAC, base64url.
    public func issue(sessionId: String, userId: String) -> String {
        let nonce = Base64URL.encode(HMACSHA256.randomBytes(12))
        return nonce + "." + Base64URL.encode(mac(nonce: nonce, sessionId: sessionId, userId: userId))
    }

    /// Whether `token` carries a valid MAC for this seat.
    public func verify(_ token: String, sessionId: String, userId: String) -> Bool {
        guard token.utf8.count <= 128 else { return false }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let given = Base64URL.decode(parts[1]) else { return false }
        return HMACSHA256.constantTimeEquals(mac(nonce: String(parts[0]), sessionId: sessionId, userId: userId), given)
    }

    private func mac(nonce: String, sessionId: String, userId: String) -> [UInt8] {
        var message = Array(nonce.utf8)
        message.append(0)
        message += Array(sessionId.utf8)
        message.append(0)
        message += Array(userId.utf8)
        return key.mac(message)
    }
}
