import Testing
@testable import WebSocket

@Suite struct UTF8ValidatorTests {
    static let invalid: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
    ]

    @Test func rejectsInvalidSequences() {
        for bytes in Self.invalid {
            var validator = UTF8Validator()
            let ok = validator.validate(bytes)
            #expect(!ok, "\(bytes)")
        }
    }

    @Test func truncatedSequencesAreIncomplete() {
        for bytes: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98]] {
            var validator = UTF8Validator()
            let ok = validator.validate(bytes)
            #expect(ok)
            #expect(!validator.isComplete)
        }
    }

    @Test func agreesWithTheStandardLibraryOnRandomInput() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0...0x7F, using: &rng) : UInt8.random(in: 0x80...0xFF, using: &rng)
            }
            let reference = String(validating: bytes, as: UTF8.self) != nil
            var validator = UTF8Validator()
            let ours = validator.validate(bytes) && validator.isComplete
            #expect(ours == reference, "\(bytes)")
        }
    }

    @Test func anySplitGivesTheSameVerdict() {
        let text = Array("κόσμε — 中文 😀 ascii ascii ascii ascii ascii ascii ascii ascii 😀".utf8)
        for cut in 0...text.count {
            var validator = UTF8Validator()
            let first = validator.validate(text[..<cut])
            let second = validator.validate(text[cut...])
            #expect(first && second)
            #expect(validator.isComplete)
        }
    }

    @Test func failsAtTheFirstBadByteOfALongASCIIRun() {
        var bytes = [UInt8](repeating: 0x61, count: 100)
        bytes[77] = 0xFF
        var validator = UTF8Validator()
        let ok = validator.validate(bytes)
        #expect(!ok)
    }
}
