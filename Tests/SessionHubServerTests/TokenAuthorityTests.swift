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

    @Test func hmacMatchesRFC4231Case2() {
        let mac = HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func secretIsGeneratedOnceAndReused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-secret-\(UUID().uuidString)/dev-secret").path
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
