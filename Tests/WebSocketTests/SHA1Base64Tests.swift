import Testing
@testable import WebSocket

@Suite("SHA-1, base64 and Sec-WebSocket-Accept")
struct SHA1Base64Tests {
    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    // MARK: SHA-1 (FIPS 180-2 appendix A and common vectors)

    @Test func sha1OfEmptyInput() {
        #expect(Self.hex(SHA1.hash([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func sha1OfABC() {
        #expect(Self.hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func sha1Of448BitMessage() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Self.hex(SHA1.hash(message)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func sha1Of896BitMessage() {
        let message = Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
            + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8)
        #expect(Self.hex(SHA1.hash(message)) == "a49b2446a02c645bf419f995b67091253a04a259")
    }

    @Test func sha1OfOneMillionA() {
        let expected = "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        #expect(Self.hex(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == expected)

        // The same message fed in uneven pieces, so blocks straddle update calls.
        var hasher = SHA1()
        var remaining = 1_000_000
        var piece = 1
        while remaining > 0 {
            let count = min(piece, remaining)
            hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: count))
            remaining -= count
            piece = piece * 3 % 997 + 1
        }
        #expect(Self.hex(hasher.finalize()) == expected)
    }

    @Test(arguments: [
        (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (65, "11655326c708d70319be2610e8a57d9a5b959d3b"),
    ])
    func sha1AtPaddingBoundaries(length: Int, expected: String) {
        #expect(Self.hex(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: length))) == expected)
    }

    @Test func sha1IsIndependentOfHowInputIsSplit() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq-and-some-more-bytes-to-pass-64".utf8)
        let whole = SHA1.hash(message)
        for split in 0...message.count {
            var hasher = SHA1()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
    }

    @Test func sha1FinalizeLeavesHasherUsable() {
        var hasher = SHA1()
        hasher.update(Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(Array("c".utf8))
        #expect(Self.hex(hasher.finalize()) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    // MARK: Base64 (RFC 4648 §10)

    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64RFC4648Vectors(plain: String, encoded: String) throws {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        let decoded = try #require(Base64.decode(encoded))
        #expect(decoded == Array(plain.utf8))
    }

    @Test func base64RoundTripsEveryByteAndLength() throws {
        let all = (0...255).map { UInt8($0) }
        let encoded = Base64.encode(all)
        #expect(encoded.utf8.count == 344)
        #expect(try #require(Base64.decode(encoded)) == all)
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = Base64.encode(bytes)
            #expect(text.utf8.count == (length + 2) / 3 * 4)
            #expect(Base64.decode(text) == bytes, "length \(length)")
        }
    }

    @Test(arguments: [
        "Zg",          // missing padding
        "Zg=",         // length not a multiple of 4
        "Zg===",       // too much padding
        "Z===",        // three pad characters
        "=Zg=",        // padding first
        "Zg==Zm8=",    // padding in the middle
        "Zh==",        // non-zero unused bits after one byte
        "Zm9=",        // non-zero unused bits after two bytes
        "Zm9v YmFy",   // whitespace
        "Zm9v\nYmFy",  // line break
        "Zm-_",        // URL-safe alphabet
        "Zm9*",        // stray punctuation
        "Zm9é",        // non-ASCII
    ])
    func base64RejectsInvalidInput(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    // MARK: Sec-WebSocket-Accept

    @Test func acceptValueMatchesRFC6455Example() {
        // RFC 6455 §1.3.
        #expect(WebSocketAccept.value(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketAccept.value(forKey: "AAECAwQFBgcICQoLDA0ODw==") == "Bz3qJYTGdOe8gUSpLosEdiLKDrk=")
    }

    @Test func keyValidityRequiresSixteenBytes() {
        #expect(WebSocketAccept.isValidKey("dGhlIHNhbXBsZSBub25jZQ=="))
        #expect(WebSocketAccept.isValidKey("AAECAwQFBgcICQoLDA0ODw=="))
        #expect(!WebSocketAccept.isValidKey("AAECAwQFBgcICQoLDA0O"))        // 15 bytes
        #expect(!WebSocketAccept.isValidKey("AAECAwQFBgcICQoLDA0ODxA="))    // 17 bytes, also 24 characters
        #expect(!WebSocketAccept.isValidKey("dGhlIHNhbXBsZSBub25jZQ"))      // unpadded
        #expect(!WebSocketAccept.isValidKey("dGhlIHNhbXBsZSBub25jZR=="))    // non-canonical last character
        #expect(!WebSocketAccept.isValidKey(""))
    }

    @Test func generatedKeysAreValidAndDiffer() {
        let first = WebSocketAccept.makeKey()
        let second = WebSocketAccept.makeKey()
        #expect(WebSocketAccept.isValidKey(first))
        #expect(WebSocketAccept.isValidKey(second))
        #expect(first != second)
    }

    @Test func seededKeyGenerationIsDeterministic() {
        struct Counter: RandomNumberGenerator {
            var state: UInt64 = 0
            mutating func next() -> UInt64 {
                state &+= 0x0807_0605_0403_0201
                return state
            }
        }
        var generator = Counter()
        // Little-endian words 0x0807060504030201 and 0x100E0C0A08060402.
        #expect(WebSocketAccept.makeKey(using: &generator) == Base64.encode([1, 2, 3, 4, 5, 6, 7, 8, 2, 4, 6, 8, 10, 12, 14, 16]))
    }
}
