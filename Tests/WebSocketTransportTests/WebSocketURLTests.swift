import Testing
import WebSocketTransport

/// The client's URL parsing: schemes, default ports, IPv6, and what it refuses.
@Suite("WebSocket URL")
struct WebSocketURLTests {
    @Test("ws:// and wss:// with their default ports; the Host header leaves a default port out")
    func schemes() throws {
        let plain = try WebSocketURL(parsing: "ws://hub.example/ws")
        #expect(!plain.isSecure && plain.port == 80 && plain.hostHeader == "hub.example" && plain.target == "/ws")
        let secure = try WebSocketURL(parsing: "WSS://hub.example/ws?x=1")
        #expect(secure.isSecure && secure.port == 443 && secure.hostHeader == "hub.example" && secure.target == "/ws?x=1")
        #expect(secure.description == "wss://hub.example/ws?x=1")
        let custom = try WebSocketURL(parsing: "wss://[::1]:8443")
        #expect(custom.host == "::1" && custom.port == 8443 && custom.hostHeader == "[::1]:8443" && custom.target == "/")
        #expect(try WebSocketURL(parsing: "ws://h:443/").hostHeader == "h:443")
    }

    @Test("Other schemes and malformed URLs are refused")
    func refusals() {
        #expect(throws: WebSocketURL.ParseError.unsupportedScheme("http")) { try WebSocketURL(parsing: "http://h/") }
        #expect(throws: WebSocketURL.ParseError.malformed("wss://:443/")) { try WebSocketURL(parsing: "wss://:443/") }
        #expect(throws: WebSocketURL.ParseError.malformed("hub/ws")) { try WebSocketURL(parsing: "hub/ws") }
    }
}
