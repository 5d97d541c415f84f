import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// Cross-origin access to the JSON API (`/api/…`) for the origins an operator configured
/// (`http.corsOrigins`): a page served elsewhere (the app's own site) may call the hub from a
/// browser. Off unless configured.
///
/// - A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
///   answered 204 with the methods and headers the API takes (`Authorization`, `Content-Type`)
///   and a 10-minute `Access-Control-Max-Age`; from any other origin, 403 `origin_not_allowed`.
/// - Other answers to an allowed origin carry `Access-Control-Allow-Origin` (the origin itself,
///   or `*` when any is allowed) and `Vary: Origin`; to other origins, nothing: the browser
///   keeps the answer from the page.
/// - Never `Access-Control-Allow-Credentials`: the API authenticates with a bearer token the page
///   sends itself, not with cookies.
public struct CORSPolicy: Sendable, Equatable {
    /// The origins allowed; nil allows any (`*`).
    public let origins: Set<String>?

    /// The methods the API takes.
    static let allowedMethods = "GET, POST, PUT, DELETE"
    /// The request headers a page may send.
    static let allowedHeaders = "Authorization, Content-Type"
    /// How long a browser may keep a preflight's answer, seconds.
    static let maxAge = 600

    /// The policy for `setting` (`http.corsOrigins`): origins separated by commas, each
    /// `scheme://host[:port]` as a browser sends it (no path, no trailing slash), or `*` for any.
    /// - Throws: ``SettingsError/invalidValue(key:value:source:expected:)`` naming the bad entry.
    public init(_ setting: String) throws(SettingsError) {
        var origins: Set<String> = []
        var any = false
        for part in setting.split(separator: ",") {
            let entry = part.trimmingCharacters(in: .whitespaces)
            if entry == "*" {
                any = true
                continue
            }
            guard let origin = Self.canonical(entry) else {
                throw .invalidValue(key: "http.corsOrigins", value: String(entry.prefix(200)), source: "settings",
                                    expected: "an origin like https://app.example.com or http://localhost:3000 (scheme, host, optional port; no path), or *")
            }
            origins.insert(origin)
        }
        guard any || !origins.isEmpty else {
            throw .invalidValue(key: "http.corsOrigins", value: setting, source: "settings", expected: "at least one origin, or *")
        }
        self.origins = any ? nil : origins
    }

    /// `entry` lower-cased if it is an origin (`http`/`https`, a host of letters, digits, `-`,
    /// `.`, or a bracketed IPv6 address, an optional port), else nil.
    static func canonical(_ entry: String) -> String? {
        let lower = entry.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = lower.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = lower.dropFirst(7)
        } else {
            return nil
        }
        guard !rest.isEmpty, rest.count <= 253 + 6 else { return nil }
        var host = rest[...], port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                port = rest[rest.index(after: colon)...]
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
                return nil
            }
        }
        if let port {
            guard let number = Int(port), (1...65535).contains(number), String(number) == port else { return nil }
        }
        return lower
    }

    /// Whether the policy covers `path` (the JSON API).
    func applies(to path: String) -> Bool { path.hasPrefix("/api/") }

    /// Whether `origin` (the request's `Origin` header) may read the answers.
    func allows(_ origin: String) -> Bool {
        guard let origins else { return true }
        return origins.contains(origin.lowercased())
    }

    /// The answer to a preflight request, or nil when `request` is not one.
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.head.method == .OPTIONS, let origin = request.head.headers.first(name: "Origin"),
              request.head.headers.contains(name: "Access-Control-Request-Method")
        else { return nil }
        guard allows(origin) else {
            var refused = HTTPResponse.json(.forbidden, ByteBuffer(string:
                #"{"error":true,"code":"origin_not_allowed","message":"this origin may not call the API (http.corsOrigins)","details":null}"#))
            refused.headers.add(name: "Vary", value: "Origin")
            return refused
        }
        var response = HTTPResponse(status: .noContent)
        response.headers.add(name: "Access-Control-Allow-Origin", value: origins == nil ? "*" : origin)
        response.headers.add(name: "Access-Control-Allow-Methods", value: Self.allowedMethods)
        response.headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedHeaders)
        response.headers.add(name: "Access-Control-Max-Age", value: String(Self.maxAge))
        response.headers.add(name: "Vary", value: "Origin")
        return response
    }

    /// Adds the headers that let an allowed origin's page read `response`.
    func decorate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        // The answer depends on the origin whenever the policy names origins: a cache must not
        // hand one origin's answer to another.
        if origins != nil || request.head.headers.contains(name: "Origin") { response.headers.add(name: "Vary", value: "Origin") }
        guard let origin = request.head.headers.first(name: "Origin") else { return }
        guard allows(origin) else { return }
        response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origins == nil ? "*" : origin)
        response.headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: "Retry-After")
    }
}
