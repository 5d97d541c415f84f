import Foundation
import Testing
@testable import SessionHubServer

@Suite struct TokenAuthorityTests {
    let authority = TokenAuthority(secret: Array("0123456789abcdef0123456789abcdef".utf8))
    let claims = TokenClaims(sub: "u1", name: "Ana", iat: 1000, exp: 2000)

    @Test func mintedTokensVerify() throws {
        let token = authority.mint(claims)
        #expect(try authority.verify(token, now: 1500) == claims)
    }

    @Test func expiredTokensAreRefused() {
        #expect(throws: AuthError.expired) { try authority.verify(authority.mint(claims), now: 2000) }
    }

    @Test func anotherSecretsTokensAreRefused() {
        let other = TokenAuthority(secret: Array("another secret, also long enough".utf8))
        #expect(throws: AuthError.badSignature) { try authority.verify(other.mint(claims), now: 1500) }
    }

    @Test func tamperedPayloadIsRefused() throws {
        let parts = authority.mint(claims).split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(#"{"exp":2000,"iat":1000,"name":"Ana","role":"admin","sub":"u1"}"#.utf8))
        #expect(throws: AuthError.badSignature) { try authority.verify(parts[0] + "." + forged + "." + parts[2], now: 1500) }
    }

    @Test func noneAlgorithmIsRefused() throws {
        let parts = authority.mint(claims).split(separator: ".").map(String.init)
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: AuthError.unsupportedAlgorithm) { try authority.verify(none + "." + parts[1] + ".", now: 1500) }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.??.**", String(repeating: "a", count: 5000)])
    func malformedTokensAreRefused(token: String) {
        #expect(throws: AuthError.self) { try authority.verify(token, now: 1500) }
    }

    @Test func iatMayLieAtMostTheClockSkewAhead() throws {
        let now = 1_000_000
        func token(iat: Int) -> String { authority.mint(TokenClaims(sub: "u1", name: "Ana", iat: iat, exp: iat + 3600)) }
        #expect(authority.policy.maxClockSkewSeconds == 60)
        #expect(try authority.verify(token(iat: now + 60), now: now).iat == now + 60)
        #expect(throws: AuthError.notYetValid) { try authority.verify(token(iat: now + 61), now: now) }
        #expect(throws: AuthError.notYetValid) { try authority.verify(token(iat: now + 10 * 365 * 86_400), now: now) }
        #expect(AuthError.notYetValid.code == "token_not_yet_valid")
    }

    @Test func lifetimeIsAtMostTheMaximum() throws {
        let now = 1_000_000
        let week = 7 * 86_400
        #expect(authority.policy.maxLifetimeSeconds == week)
        let longest = authority.mint(TokenClaims(sub: "u1", name: "Ana", iat: now, exp: now + week))
        #expect(try authority.verify(longest, now: now).exp == now + week)
        for (iat, exp) in [(now, now + week + 1), (now, Int.max), (Int.min, Int.max), (0, now + 10)] {
            let token = authority.mint(TokenClaims(sub: "u1", name: "Ana", iat: iat, exp: exp))
            #expect(throws: AuthError.lifetimeTooLong, "iat \(iat), exp \(exp)") { try authority.verify(token, now: now) }
        }
        #expect(AuthError.lifetimeTooLong.code == "token_lifetime")
        // The limits are settings.
        var policy = TokenPolicy()
        policy.maxLifetimeSeconds = 10
        policy.maxClockSkewSeconds = 0
        let strict = TokenAuthority(secret: Array("0123456789abcdef0123456789abcdef".utf8), policy: policy)
        #expect(throws: AuthError.lifetimeTooLong) { try strict.verify(strict.mint(TokenClaims(sub: "u", name: "", iat: now, exp: now + 11)), now: now) }
        #expect(throws: AuthError.notYetValid) { try strict.verify(strict.mint(TokenClaims(sub: "u", name: "", iat: now + 1, exp: now + 5)), now: now) }
    }

    @Test func eachSignatureHasExactlyOneSpelling() throws {
        let token = authority.mint(claims)
        let parts = token.split(separator: ".").map(String.init)
        let signature = parts[2]
        #expect(signature.count == 43) // 32 bytes: the last character carries 2 unused bits
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastCharacter = try #require(signature.last)
        let last = try #require(alphabet.firstIndex(of: lastCharacter))
        var accepted: [String] = []
        for low in 0..<4 {
            let spelling = String(signature.dropLast()) + String(alphabet[(last & ~3) | low])
            let candidate = parts[0] + "." + parts[1] + "." + spelling
            if (try? authority.verify(candidate, now: 1500)) != nil { accepted.append(spelling) }
            else { #expect(throws: AuthError.malformed) { try authority.verify(candidate, now: 1500) } }
        }
        #expect(accepted == [signature])
        // Padding and other characters are refused too.
        for bad in [token + "=", parts[0] + "=." + parts[1] + "." + signature, parts[0] + "." + parts[1] + "." + signature + " ",
                    parts[0] + "." + parts[1] + "." + signature.replacingOccurrences(of: "-", with: "+")] where bad != token {
            #expect(throws: AuthError.self) { try authority.verify(bad, now: 1500) }
        }
    }

    @Test("Base64URL.encode spells what RFC 4648 §5 and Foundation's base64 (URL alphabet, no padding) spell")
    func base64URLEncodesAsTheRFC() {
        // RFC 4648 §10's vectors, unpadded.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { #expect(Base64URL.encode(Array(plain.utf8)) == encoded) }
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == reference, "\(length) bytes")
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test func base64URLDecodesExactlyWhatItEncodes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(Base64URL.decode(Substring(text)) == bytes, "\(length) bytes")
        }
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QR") == nil)   // non-zero trailing bits
        #expect(Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(Base64URL.decode("QUJ") == nil)
        #expect(Base64URL.decode("QQ==") == nil)
        #expect(Base64URL.decode("Q") == nil)
        #expect(Base64URL.decode("QU+/") == nil)
    }

    @Test(arguments: ["ana\nINFO forged line", "\u{1B}[31mred", "tab\there", "del\u{7F}", "nel\u{85}", "csi\u{9B}2J", "nul\u{0}"])
    func controlCharactersInSubOrNameAreRefused(text: String) {
        let inName = authority.mint(TokenClaims(sub: "u1", name: text, iat: 1000, exp: 2000))
        let inSub = authority.mint(TokenClaims(sub: text, name: "Ana", iat: 1000, exp: 2000))
        #expect(throws: AuthError.controlCharacters) { try authority.verify(inName, now: 1500) }
        #expect(throws: AuthError.controlCharacters) { try authority.verify(inSub, now: 1500) }
        #expect(AuthError.controlCharacters.code == "token_control_characters")
    }

    @Test func printableUnicodeNamesAreFine() throws {
        let token = authority.mint(TokenClaims(sub: "u-ñ", name: "Zoë 🌍 «José» 李", iat: 1000, exp: 2000))
        #expect(try authority.verify(token, now: 1500).name == "Zoë 🌍 «José» 李")
    }

    @Test func hmacMatchesRFC4231Case2() {
        let mac = HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("A prepared key gives the RFC 4231 MACs on every use, from many tasks at once, a long key included")
    func preparedKeyIsReusable() async {
        let jefe = HMACSHA256.Key(Array("Jefe".utf8))
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let macs = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 {
                group.addTask { jefe.mac(Array("what do ya want for nothing?".utf8)).map { String(format: "%02x", $0) }.joined() }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(macs.count == 64 && Set(macs) == [expected])
        // Case 6: a key longer than SHA-256's block is hashed first.
        let long = HMACSHA256.Key([UInt8](repeating: 0xaa, count: 131))
        let mac = long.mac(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(mac.map { String(format: "%02x", $0) }.joined() == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMACSHA256.Key([]).mac([]).count == 32)
    }

    @Test func randomBytesAreFreshEachTime() {
        let a = HMACSHA256.randomBytes(12), b = HMACSHA256.randomBytes(12)
        #expect(a.count == 12 && b.count == 12 && a != b)
        #expect(HMACSHA256.randomBytes(0).isEmpty)
        for count in [1, 7, 8, 9, 32, 33] { #expect(HMACSHA256.randomBytes(count).count == count) }
        // Every byte value turns up: not a byte-wise constant or a narrowed range.
        #expect(Set(HMACSHA256.randomBytes(8192)).count == 256)
    }

    @Test func secretIsGeneratedOnceAndReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-secret-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("dev-secret").path
        let first = try HubSecret.load(file: file, environment: [:])
        let second = try HubSecret.load(file: file, environment: [:])
        #expect(first == second)
        #expect(first.count >= 32)
        let fromEnv = try HubSecret.load(file: file, environment: ["SESSIONHUB_SECRET": "an environment secret!"])
        #expect(fromEnv == Array("an environment secret!".utf8))
        #expect(throws: HubSecret.LoadError.self) { try HubSecret.load(file: file, environment: ["SESSIONHUB_SECRET": "short"]) }
    }

    /// docs/OPERATIONS.md section 4.3: the key is the file's UTF-8 text with surrounding
    /// whitespace trimmed, at least 16 bytes; a file that is not UTF-8 is refused, not altered.
    @Test func secretFileIsTrimmedTextOfAtLeast16Bytes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("secret").path
        func write(_ bytes: [UInt8]) { #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes))) }

        write(Array(" \t0123456789 abcdef\r\n\n".utf8))
        #expect(try HubSecret.load(file: file, environment: [:]) == Array("0123456789 abcdef".utf8))
        write(Array("0123456789abcdef\n".utf8))  // 16 bytes: the minimum
        #expect(try HubSecret.load(file: file, environment: [:]) == Array("0123456789abcdef".utf8))
        write(Array("0123456789abcde\n\n".utf8))  // 15 bytes once trimmed
        #expect(throws: HubSecret.LoadError.self) { try HubSecret.load(file: file, environment: [:]) }
        // 32 random-looking bytes that are not UTF-8: once silently turned into U+FFFD characters.
        write([0xFF, 0xFE] + Array(repeating: 0x80, count: 30))
        #expect(throws: HubSecret.LoadError.self) { try HubSecret.load(file: file, environment: [:]) }
        // The variable is taken exactly as set, spaces included.
        #expect(try HubSecret.load(file: file, environment: ["SESSIONHUB_SECRET": " 0123456789abcdef\n"]) == Array(" 0123456789abcdef\n".utf8))
    }
}
