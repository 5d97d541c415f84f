import NIOCore
import NIOHTTP1
import WebSocketTransport

/// The hub's plain HTTP routes: health and readiness, Prometheus metrics, the operator API (`/admin/api/`), the
/// operator dashboard's files (`/admin`, …), the web player's (`/play`, …), the development sign-in, and the JSON
/// API when a store is configured; CORS on `/api/…` when configured.
struct HubHTTPResponder: HTTPResponder {
    let api: HubAPI?
    /// What `GET /metrics` renders (Prometheus text format); nil answers 404 there.
    var metrics: MetricsSource? = nil
    /// The operator routes (`/admin/api/*`, `/readyz`); nil answers 404 there.
    var operators: OperatorConsole? = nil
    /// The dashboard's static files; nil answers 404 there.
    var dashboard: StaticAssets? = nil
    /// The web player's static files; nil answers 404 there.
    var play: StaticAssets? = nil
    /// `POST /api/dev/sign-in`; nil (turned off) answers 404 there.
    var devSignIn: DevSignIn? = nil
    /// Cross-origin access to `/api/…`; nil sends no CORS headers.
    var cors: CORSPolicy? = nil
    /// `GET /api/join-codes/{code}` (with or without a store); nil answers 404 there.
    var joinCodes: JoinCodeLookup? = nil
    /// The JSON API's body limit (``HubServerConfiguration/maxAPIBodySize``).
    var maxAPIBodySize: Int

    /// The JSON API (`/api/...`, `/admin/...`) takes at most ``maxAPIBodySize``; other routes the
    /// server's limit.
    func bodyLimit(for head: HTTPRequestHead) -> Int? {
        head.uri.hasPrefix("/api/") || head.uri.hasPrefix("/admin") ? maxAPIBodySize : nil
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard let cors, cors.applies(to: request.path) else { return await route(request) }
        if let preflight = cors.preflight(request) { return preflight }
        var response = await route(request)
        cors.decorate(&response, for: request)
        return response
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        if let play, play.serves(request.path) { return play.respond(to: request) }
        if request.path == DevSignIn.path {
            guard let devSignIn else { return APIError.notFound("the development sign-in is off (http.devSignIn)").response }
            return await devSignIn.respond(to: request)
        }
        if let dashboard {
            if dashboard.serves(request.path) { return dashboard.respond(to: request) }
            if request.path == "/admin/feed" {
                var response = HTTPResponse.text(.upgradeRequired, "/admin/feed is a WebSocket endpoint\n")
                response.headers.add(name: "Upgrade", value: "websocket")
                return response
            }
        }
        if let operators {
            if request.path.hasPrefix("/admin/api/") || request.path == "/admin/api" {
                return await AdminAPI(console: operators).respond(to: request)
            }
            if request.path == "/readyz" {
                switch request.head.method {
                case .GET, .HEAD: return await Readiness(console: operators).respond(to: request)
                default: return .text(.methodNotAllowed, "method not allowed\n")
                }
            }
        }
        if let metrics, request.path == "/metrics" {
            guard request.head.method == .GET || request.head.method == .HEAD else {
                return .text(.methodNotAllowed, "method not allowed\n")
            }
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                                body: ByteBuffer(string: await metrics.render()))
        }
        if let joinCodes, JoinCodeLookup.serves(request.path) {
            return await joinCodes.respond(to: request)
        }
        if let api, request.path.hasPrefix("/api/") || request.path.hasPrefix("/admin/") {
            return await api.respond(to: request)
        }
        switch (request.head.method, request.path) {
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            return .json(.ok, ByteBuffer(string: #"{"status":"ok"}"#))
        case (_, "/healthz"):
            return .text(.methodNotAllowed, "method not allowed\n")
        default:
            return .json(.notFound, ByteBuffer(string: #"{"error":true,"code":"not_found","message":"no such route","details":null}"#))
        }
    }
}
