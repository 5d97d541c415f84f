import Foundation
import HubProtocol
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    /// Parses the writer's output with Foundation, so escaping mistakes fail loudly.
    private func parse(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("Strings with quotes, backslashes, control characters and non-ASCII round-trip")
    func escaping() throws {
        let tricky = "a\"b\\c\nd\re\tf\u{01}g\u{1F}h κόσμε 😀 </script>"
        var w = JSONWriter()
        w.beginObject()
        w.field("s", tricky)
        w.endObject()
        let object = try parse(w.output)
        #expect(object["s"] as? String == tricky)
        #expect(!w.output.contains("\n"))
    }

    @Test("Commas, nesting, nulls, numbers and booleans")
    func structure() throws {
        var w = JSONWriter()
        w.beginObject()
        w.field("a", 1)
        w.field("b", Int64?.none)
        w.key("list")
        w.beginArray()
        w.value(true)
        w.beginObject()
        w.field("x", "y")
        w.endObject()
        w.value(Int64(-5))
        w.endArray()
        w.optionalField("absent", nil)
        w.field("z", false)
        w.endObject()
        #expect(w.output == #"{"a":1,"b":null,"list":[true,{"x":"y"},-5],"z":false}"#)
        _ = try parse(w.output)
    }

    @Test("Integers at the edges are written as Swift prints them")
    func integers() {
        for number: Int64 in [0, 9, 10, -1, -10, 99, 100, 1_700_000_000_123, .max, .min, .max - 1, .min + 1] {
            var w = JSONWriter()
            w.value(number)
            #expect(w.output == String(number))
        }
        var w = JSONWriter()
        w.value(Int.min)
        #expect(w.output == String(Int.min))
    }

    @Test("Every control character is escaped and reads back")
    func controlCharacters() throws {
        let text = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}\""
        var w = JSONWriter()
        w.beginObject()
        w.field("s", text)
        w.endObject()
        #expect(try parse(w.output)["s"] as? String == text)
        #expect(w.output.utf8.allSatisfy { $0 >= 0x20 })
        #expect(w.utf8 == Array(w.output.utf8))
    }
}
