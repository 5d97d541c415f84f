import FuzzSupport
import SessionHubServer

/// The bearer-token parser (``TokenAuthority``, and ``HubTokenVerifier`` with an identity
/// provider's RS256/ES256 keys) and resume tokens (``SignedResumeTokens``), through their public API.
///
/// Input: byte 0 = mode; bytes 1–2 = a mutation position; byte 3 = the mutation (and the minted
/// token's lifetime); the rest = a token
/// (mode bit 0 clear) or `sub\0name\0role` of a token the harness mints and then mutates (bit 0 set).
///
/// Properties: nothing traps; an arbitrary string never verifies (no valid signature can be
/// guessed), with the hub's secret or the identity provider's keys, nor passes as a resume token; an accepted token has a non-empty `sub`, fields of at
/// most 128 bytes and an `exp` after `now`; a minted token verifies to its claims; a mutated
/// minted token verifies only if its signed part is unchanged (so only the signature's spelling
/// may differ); a resume token verifies for its own seat only.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(FuzzDriver.bytes(data, size))
    let mode = reader.byte()
    let position = Int(reader.uint16())
    let mutation = reader.byte()
    let rest = reader.rest()
    let authority = TokenAuthority(secret: secret)
    let now = 1_800_000_000

    if mode & 1 == 0 {
        let token = String(decoding: rest, as: UTF8.self)
        if let claims = try? authority.verify(token, now: now) {
            fuzzCheck(false, "an unsigned string verified: \(claims)")
        }
        if let claims = try? withIdentityProvider.verify(token, now: now) {
            fuzzCheck(false, "an unsigned string verified with the identity provider's keys: \(claims)")
        }
        fuzzCheck(!resumeTokens.verify(token, sessionId: "s1", userId: "u1"), "a guessed resume token verified")
        return 0
    }

    // Mint from fuzzed claims, check the round trip, then mutate one byte and verify again.
    var fields = rest.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    while fields.count < 3 { fields.append("") }
    let lifetime = Int(mutation) * 100 - 1000
    let claims = TokenClaims(sub: fields[0], name: fields[1], iat: now - 60, exp: now + lifetime,
                             role: fields[2].isEmpty ? nil : fields[2])
    let token = authority.mint(claims)
    // Claims the hub must refuse, and claims it must accept (short-lived, plain names: stricter rules
    // on lifetime or characters may refuse others, which is allowed either way).
    let mustRefuse = claims.sub.isEmpty || claims.sub.utf8.count > 128 || claims.name.utf8.count > 128 || claims.exp <= now
    let mustAccept = !mustRefuse && isPlain(claims.sub) && isPlain(claims.name) && isPlain(claims.role ?? "")
        && claims.exp - claims.iat <= 3600 && token.utf8.count <= 4096
    do {
        let verified = try authority.verify(token, now: now)
        fuzzCheck(!mustRefuse, "invalid claims \(claims) verified")
        fuzzCheck(verified == claims, "minted \(claims), verified \(verified)")
    } catch {
        fuzzCheck(!mustAccept, "valid claims \(claims) refused: \(error)")
    }

    var bytes = Array(token.utf8)
    if !bytes.isEmpty {
        let index = position % bytes.count
        switch mode >> 1 & 3 {
        case 0: bytes[index] ^= mutation | 1
        case 1: bytes.remove(at: index)
        case 2: bytes.insert(mutation, at: index)
        default: bytes[index] = mutation
        }
    }
    let mutated = String(decoding: bytes, as: UTF8.self)
    if mutated != token, let accepted = try? authority.verify(mutated, now: now) {
        let signedPart = { (text: String) in text.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".") }
        fuzzCheck(signedPart(mutated) == signedPart(token), "a token with a changed signed part verified: \(mutated)")
        fuzzCheck(accepted == claims, "a mutated token verified to other claims")
    }

    // Resume tokens: valid for their own seat only, and not after a mutation of their MAC.
    let seat = (session: fields[0], user: fields[1])
    let resume = resumeTokens.issue(sessionId: seat.session, userId: seat.user)
    if resume.utf8.count <= 128 {
        fuzzCheck(resumeTokens.verify(resume, sessionId: seat.session, userId: seat.user), "own resume token refused")
    }
    fuzzCheck(!resumeTokens.verify(resume, sessionId: seat.session + "x", userId: seat.user), "resume token valid for another session")
    fuzzCheck(!resumeTokens.verify(resume, sessionId: seat.session, userId: seat.user + "x"), "resume token valid for another user")
    return 0
}

/// Letters, digits, space, `-` and `_` only.
private func isPlain(_ text: String) -> Bool {
    text.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x20 || byte == 0x2D || byte == 0x5F
    }
}

private let secret = Array("fuzzing-secret-0123456789abcdef".utf8)
private let resumeTokens = SignedResumeTokens(secret: secret)

/// An identity provider's public keys (a P-256 and an RSA 2048 key whose private halves are gone).
private let identityJWKS = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-ec","x":"ZnFqJped6ZSWOUxQHE5cu69VmRuziIwxsVRRWyDUMZg","y":"4HB8beCpo89i6hNBhCvlai25ywUPRw_R5UNyhkHQpGw"},{"kty":"RSA","kid":"fuzz-rsa","n":"rumwcMflRxqzjU-PT647x6vXg0Y0HwX6p8xfzJ_DmCH_Qda_rMUtW0VDhd8kEL4SRQkVOgR9LxJdsGgrREqmJcyU_jLckPGvbuhA6mbTol59UKgiIX0TelFNanBNkVY3tGVkIpxbBtCEq4XzcFM6AYv_xsIqVnL0JnY2arZkgvmFgT18wI5AOp0o-bB6nTq6RsTxWtwCmM9hKWCIRJ44xrims0QbWeQyYwH2YB-JiEfT5iA2OvA5Uu_uwE26MA96NpuyNBNtMwuLcSwWV7rpNFLJS9iPN7jcC66rJo-V3b8C3oGT0wtA-p1SVZ5e8flYONLMGIMwZ04M-X4LAqLLsw","e":"AQAB"}]}"#
private let withIdentityProvider: HubTokenVerifier = {
    let ring = JWKSKeyRing()
    // The set is fixed and valid; were it not, every token would be refused, which the checks allow.
    if let set = try? JSONWebKeySet(data: Array(identityJWKS.utf8), source: "fuzz") { ring.replace(with: set) }
    return HubTokenVerifier(hub: TokenAuthority(secret: secret), identityProvider: IdentityProviderVerifier(keys: ring))
}()

@main
enum FuzzTokenMain {
    static func main() {
        FuzzDriver.run(fuzzToken)
    }
}
