import FuzzSupport
import WebSocket

/// The opening handshake (``ServerHandshake``, ``HandshakeRequest``) and the
/// `Sec-WebSocket-Extensions` parser behind ``PerMessageDeflateNegotiation``.
///
/// Input: byte 0 = options (bit 0: the rest is one extension header value instead of a request
/// head; bit 1: an origin policy; bits 2–4: the server's compression settings), the rest = an
/// HTTP/1.1 request head (`METHOD target HTTP/x.y`, then `Name: value` lines).
///
/// Properties: nothing traps; an accepted upgrade had method GET, HTTP/1.1+, one Host, version 13,
/// one valid key and a 28-character accept value, and its subprotocol was offered; a negotiated
/// permessage-deflate stays within the server's limits and its response header is accepted by
/// our own client with the same parameters; window bits are always 8...15.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(FuzzDriver.bytes(data, size))
    let options = reader.byte()
    let text = String(decoding: reader.rest(), as: UTF8.self)
    let deflate = PerMessageDeflateConfiguration(
        serverNoContextTakeover: options & 4 != 0,
        clientNoContextTakeover: options & 8 != 0,
        maxServerWindowBits: options & 16 != 0 ? 10 : 15,
        maxClientWindowBits: options & 16 != 0 ? 9 : 15)
    if options & 1 != 0 {
        checkExtensions([text], configuration: deflate)
        return 0
    }
    let request = parseHead(text)
    _ = request.path
    _ = request.query
    if let token = request.queryItem("token") {
        _ = token
        fuzzCheck(request.query != nil, "a query item without a query")
    }
    let configuration = ServerHandshakeConfiguration(
        subprotocols: ["sessionhub.v1", "chat"],
        originPolicy: options & 2 != 0 ? ServerHandshakeConfiguration.allowingOrigins(["https://hub.example"]) : nil)
    switch ServerHandshake.evaluate(request, configuration: configuration) {
    case .failure(let rejection):
        _ = rejection
    case .success(let upgrade):
        fuzzCheck(request.method == "GET", "accepted method \(request.method)")
        fuzzCheck(request.versionMajor > 1 || (request.versionMajor == 1 && request.versionMinor >= 1), "accepted HTTP/1.0")
        fuzzCheck(request.values(of: "Host").count == 1, "accepted without exactly one Host")
        fuzzCheck(request.values(of: "Sec-WebSocket-Key").count == 1, "accepted without exactly one key")
        fuzzCheck(WebSocketAccept.isValidKey(upgrade.key), "accepted an invalid key \(upgrade.key)")
        fuzzCheck(upgrade.acceptValue.utf8.count == 28, "accept value \(upgrade.acceptValue)")
        if let subprotocol = upgrade.subprotocol {
            fuzzCheck(configuration.subprotocols.contains(subprotocol), "picked unsupported \(subprotocol)")
            fuzzCheck(request.values(of: "Sec-WebSocket-Protocol").contains { $0.contains(subprotocol) },
                      "picked \(subprotocol) that was not offered")
        }
        checkExtensions(upgrade.extensionOffers, configuration: deflate)
        _ = upgrade.responseHeaders(extensions: nil)
    }
    return 0
}

/// Negotiates on `offers` as a server, and answers the same text as a client would.
private func checkExtensions(_ offers: [String], configuration: PerMessageDeflateConfiguration) {
    if let agreed = PerMessageDeflateNegotiation.negotiate(offers: offers, configuration: configuration) {
        fuzzCheck((8...15).contains(agreed.clientMaxWindowBits), "client window \(agreed.clientMaxWindowBits)")
        fuzzCheck((8...15).contains(agreed.serverMaxWindowBits), "server window \(agreed.serverMaxWindowBits)")
        fuzzCheck(agreed.serverMaxWindowBits <= configuration.maxServerWindowBits, "server window above the limit")
        fuzzCheck(agreed.clientMaxWindowBits <= configuration.maxClientWindowBits, "client window above the limit")
        fuzzCheck(!configuration.serverNoContextTakeover || agreed.serverNoContextTakeover, "dropped server_no_context_takeover")
        // Our own client, offering the most it can, must accept the answer and agree on it.
        let client = PerMessageDeflateConfiguration(serverNoContextTakeover: false, clientNoContextTakeover: false)
        do {
            let seen = try PerMessageDeflateNegotiation.acceptResponse(headerValues: [agreed.headerValue], configuration: client)
            fuzzCheck(seen?.serverMaxWindowBits == agreed.serverMaxWindowBits
                        && seen?.serverNoContextTakeover == agreed.serverNoContextTakeover
                        && seen?.clientNoContextTakeover == agreed.clientNoContextTakeover,
                      "client reads \(agreed.headerValue) as \(String(describing: seen))")
        } catch {
            fuzzCheck(false, "our client refuses our answer \(agreed.headerValue): \(error)")
        }
    }
    // The same values as a server's response: either refused or within what the client offered.
    let client = PerMessageDeflateConfiguration(maxServerWindowBits: 12, maxClientWindowBits: 11)
    if let accepted = try? PerMessageDeflateNegotiation.acceptResponse(headerValues: offers, configuration: client) {
        fuzzCheck(accepted.serverMaxWindowBits <= 12 && accepted.serverMaxWindowBits >= 8, "response server window out of range")
        fuzzCheck(accepted.clientMaxWindowBits <= 11 && accepted.clientMaxWindowBits >= 8, "response client window out of range")
        fuzzCheck(accepted.serverNoContextTakeover, "response without the offered server_no_context_takeover")
    }
}

/// A lenient HTTP/1.1 request head reader (the transport uses NIOHTTP1; this only has to produce
/// every shape of ``HandshakeRequest``).
private func parseHead(_ text: String) -> HandshakeRequest {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
        line.hasSuffix("\r") ? line.dropLast() : line
    }
    let requestLine = lines.isEmpty ? "" : lines.removeFirst()
    let parts = requestLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    let method = parts.count > 0 ? String(parts[0]) : ""
    let target = parts.count > 1 ? String(parts[1]) : ""
    var major = 1, minor = 1
    if parts.count > 2, parts[2].hasPrefix("HTTP/") {
        let version = parts[2].dropFirst(5).split(separator: ".", maxSplits: 1)
        major = version.first.flatMap { Int($0.prefix(4)) } ?? 0
        minor = version.count > 1 ? Int(version[1].prefix(4)) ?? 0 : 0
    }
    var headers: [(name: String, value: String)] = []
    for line in lines where !line.isEmpty {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        headers.append((name: String(line[..<colon]), value: String(value)))
    }
    return HandshakeRequest(method: method, target: target, versionMajor: major, versionMinor: minor, headers: headers)
}

@main
enum FuzzHandshakeMain {
    static func main() {
        FuzzDriver.run(fuzzHandshake)
    }
}
