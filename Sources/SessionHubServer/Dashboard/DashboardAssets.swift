import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// The operator dashboard's static files, shipped as package resources (`Dashboard/Static`,
/// copied into `SessionHub_SessionHubServer.resources` next to the binary) and served as they
/// are — no build step:
///
/// | route | file |
/// |---|---|
/// | `GET /admin`, `GET /admin/` | `dashboard.html` |
/// | `GET /admin/dashboard.css` | `dashboard.css` |
/// | `GET /admin/dashboard.js` | `dashboard.js` |
///
/// They hold no data, so they are served without a token; the data comes over `/admin/feed`
/// (``DashboardFeed``) once the page has authenticated there. Every answer carries
/// `Cache-Control: no-cache` and a strict Content-Security-Policy (scripts, styles and
/// connections from this origin only, no inline script, no framing).
struct DashboardAssets: Sendable {
    /// The policy sent with every dashboard file. `connect-src 'self'` covers `ws:`/`wss:` to the
    /// same host (CSP Level 3).
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The routes and the files they serve.
    static let routes: [String: (file: String, contentType: String)] = [
        "/admin": ("dashboard.html", "text/html; charset=utf-8"),
        "/admin/": ("dashboard.html", "text/html; charset=utf-8"),
        "/admin/dashboard.css": ("dashboard.css", "text/css; charset=utf-8"),
        "/admin/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
    ]

    /// File name → contents, read once.
    private let files: [String: ByteBuffer]
    /// Why the files could not be read (nil when they were).
    let problem: String?

    /// Files given directly (tests).
    init(files: [String: String]) {
        self.files = files.mapValues { ByteBuffer(string: $0) }
        self.problem = nil
    }

    /// Reads the files from the package's resource bundle.
    static func load() -> DashboardAssets {
        guard let directory = staticDirectory() else {
            return DashboardAssets(missing: "the dashboard files are not installed: copy \(bundleName) next to the sessionhub binary")
        }
        var files: [String: ByteBuffer] = [:]
        for name in Set(routes.values.map(\.file)) {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                return DashboardAssets(missing: "the dashboard file \(name) is missing from \(bundleName)")
            }
            files[name] = ByteBuffer(bytes: data)
        }
        return DashboardAssets(files: files)
    }

    private init(files: [String: ByteBuffer]) {
        self.files = files
        self.problem = nil
    }

    private init(missing problem: String) {
        self.files = [:]
        self.problem = problem
    }

    #if canImport(Darwin)
    static let bundleName = "SessionHub_SessionHubServer.bundle"
    #else
    static let bundleName = "SessionHub_SessionHubServer.resources"
    #endif

    /// `Static/` inside the resource bundle. SwiftPM's `Bundle.module` stops the process when its
    /// bundle is missing, so it is only touched once the bundle is known to sit next to the
    /// binary (where `Bundle.module` looks first): a deployment that did not copy the bundle
    /// gets a 503 on `/admin` instead of a crash.
    private static func staticDirectory() -> URL? {
        let beside = Bundle.main.bundleURL.appendingPathComponent(bundleName)
        guard FileManager.default.fileExists(atPath: beside.path) else { return nil }
        return Bundle.module.resourceURL?.appendingPathComponent("Static")
    }

    /// Whether `path` is one of the dashboard's files.
    static func serves(_ path: String) -> Bool { routes[path] != nil }

    /// The answer for a request to one of ``routes``.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if let route = Self.routes[request.path], let body = files[route.file] {
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
            response = .text(.serviceUnavailable, (problem ?? "the dashboard is not available") + "\n")
        }
        Self.secure(&response.headers)
        return response
    }

    /// The headers every dashboard answer carries.
    static func secure(_ headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: "Cache-Control", value: "no-cache")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: contentSecurityPolicy)
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
    }
}
