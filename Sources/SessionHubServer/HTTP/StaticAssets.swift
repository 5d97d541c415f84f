import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// A handful of static files shipped as package resources (a folder of the server target, copied
/// into `SessionHub_SessionHubServer.resources` next to the binary) and served as they are — no
/// build step: the operator dashboard (``dashboard``) and the web player (``play``).
///
/// They hold no data, so they are served without a token. Every answer carries
/// `Cache-Control: no-cache` and a strict Content-Security-Policy (scripts, styles and
/// connections from this origin only, no inline script, no framing).
struct StaticAssets: Sendable {
    /// One served file.
    struct Route: Sendable {
        var file: String
        var contentType: String
    }

    /// The policy sent with every file. `connect-src 'self'` covers `ws:`/`wss:` to the same host
    /// (CSP Level 3).
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = "text/html; charset=utf-8", css = "text/css; charset=utf-8", javascript = "text/javascript; charset=utf-8"

    /// The operator dashboard: `/admin`, `/admin/`, `/admin/dashboard.css`, `/admin/dashboard.js`
    /// (bundle folder `Static`); its data comes over `/admin/feed` once the page authenticated.
    static let dashboardRoutes: [String: Route] = [
        "/admin": Route(file: "dashboard.html", contentType: html),
        "/admin/": Route(file: "dashboard.html", contentType: html),
        "/admin/dashboard.css": Route(file: "dashboard.css", contentType: css),
        "/admin/dashboard.js": Route(file: "dashboard.js", contentType: javascript),
    ]

    /// The web player: `/play`, `/play/`, its style and script, and the JavaScript client module
    /// it is built on (bundle folder `Play`; docs/WEB.md).
    static let playRoutes: [String: Route] = [
        "/play": Route(file: "play.html", contentType: html),
        "/play/": Route(file: "play.html", contentType: html),
        "/play/play.css": Route(file: "play.css", contentType: css),
        "/play/play.js": Route(file: "play.js", contentType: javascript),
        "/play/sessionhub.js": Route(file: "sessionhub.mjs", contentType: javascript),
    ]

    /// What the files are (for messages): "the dashboard", "the web player".
    let label: String
    /// Path → file.
    let routes: [String: Route]
    /// File name → contents, read once.
    private let files: [String: ByteBuffer]
    /// Why the files could not be read (nil when they were).
    let problem: String?

    /// Files given directly (tests).
    init(label: String, routes: [String: Route], files: [String: String]) {
        self.label = label
        self.routes = routes
        self.files = files.mapValues { ByteBuffer(string: $0) }
        self.problem = nil
    }

    private init(label: String, routes: [String: Route], buffers: [String: ByteBuffer], problem: String?) {
        self.label = label
        self.routes = routes
        self.files = buffers
        self.problem = problem
    }

    /// The operator dashboard's files.
    static func dashboard() -> StaticAssets { load(label: "the dashboard", folder: "Static", routes: dashboardRoutes) }

    /// The web player's files.
    static func play() -> StaticAssets { load(label: "the web player", folder: "Play", routes: playRoutes) }

    /// Reads the files of `routes` from `folder` of the package's resource bundle.
    static func load(label: String, folder: String, routes: [String: Route]) -> StaticAssets {
        guard let directory = resourceDirectory(folder) else {
            return StaticAssets(label: label, routes: routes, buffers: [:],
                                problem: "\(label) is not installed: copy \(bundleName) next to the sessionhub binary")
        }
        var files: [String: ByteBuffer] = [:]
        for name in Set(routes.values.map(\.file)) {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                return StaticAssets(label: label, routes: routes, buffers: [:],
                                    problem: "the file \(name) of \(label) is missing from \(bundleName)")
            }
            files[name] = ByteBuffer(bytes: data)
        }
        return StaticAssets(label: label, routes: routes, buffers: files, problem: nil)
    }

    #if canImport(Darwin)
    static let bundleName = "SessionHub_SessionHubServer.bundle"
    #else
    static let bundleName = "SessionHub_SessionHubServer.resources"
    #endif

    /// `folder` inside the resource bundle. SwiftPM's `Bundle.module` stops the process when its
    /// bundle is missing, so it is only touched once the bundle is known to sit next to the
    /// binary (where `Bundle.module` looks first): a deployment that did not copy the bundle
    /// gets a 503 instead of a crash.
    private static func resourceDirectory(_ folder: String) -> URL? {
        let beside = Bundle.main.bundleURL.appendingPathComponent(bundleName)
        guard FileManager.default.fileExists(atPath: beside.path) else { return nil }
        return Bundle.module.resourceURL?.appendingPathComponent(folder)
    }

    /// Whether `path` is one of the files.
    func serves(_ path: String) -> Bool { routes[path] != nil }

    /// The answer for a request to one of ``routes``.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if let route = routes[request.path], let body = files[route.file] {
            switch request.head.method {
            case .GET:
                response = HTTPResponse(status: .ok, headers: ["Content-Type": route.contentType], body: body)
            case .HEAD:
                response = HTTPResponse(status: .ok, headers: ["Content-Type": route.contentType])
            default:
                response = .text(.methodNotAllowed, "method not allowed\n")
                response.headers.add(name: "Allow", value: "GET, HEAD")
            }
        } else {
            response = .text(.serviceUnavailable, (problem ?? "\(label) is not available") + "\n")
        }
        Self.secure(&response.headers)
        return response
    }

    /// The headers every static answer carries.
    static func secure(_ headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: "Cache-Control", value: "no-cache")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: contentSecurityPolicy)
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
    }
}
