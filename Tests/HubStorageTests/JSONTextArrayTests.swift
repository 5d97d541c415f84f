import Foundation
@testable import HubStorage
import Testing

@Suite("JSONTextArray: the word lists SQLite's json_each reads")
struct JSONTextArrayTests {
    static let awkward = ["", "hola", "café", "qu\"ote", "back\\slash", "tab\there", "nl\nx", "\u{01}\u{1f}", "日本語",
                          "emoji 🙂", "slash/ok", "\u{7f}del", "mañana"]

    @Test("Foundation reads back exactly the strings written, in order")
    func foundationRoundTrip() throws {
        let text = JSONTextArray.encode(Self.awkward)
        let decoded = try JSONDecoder().decode([String].self, from: Data(text.utf8))
        #expect(decoded == Self.awkward)
        #expect(JSONTextArray.encode([String]()) == "[]")
        #expect(JSONTextArray.encode(["a", "b"]) == #"["a","b"]"#)
    }

    @Test("SQLite's json_each reads back exactly the strings written, also for random text")
    func sqliteRoundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file(), migrations: [])
        var generator = SystemRandomNumberGenerator()
        var lists = [Self.awkward]
        for _ in 0..<50 {
            lists.append((0..<Int.random(in: 0...20, using: &generator)).map { _ in
                String((0..<Int.random(in: 0...12, using: &generator)).map { _ in
                    Character(Unicode.Scalar(UInt32.random(in: 1...0x2FF, using: &generator)) ?? "x")
                })
            })
        }
        for list in lists {
            var read: [String] = []
            try database.withConnection { db in
                try db.forEachRow("SELECT value FROM json_each(?) ORDER BY key", [.text(JSONTextArray.encode(list))]) { row in
                    read.append(row.string(0))
                    return true
                }
            }
            #expect(read == list)
        }
    }
}
