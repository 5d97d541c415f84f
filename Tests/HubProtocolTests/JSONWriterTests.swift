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
}
