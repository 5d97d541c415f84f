import Foundation
import HubDomain

/// The user's history on the hub, with the contract of the SDK's history repository:
/// ``saveSession(_:)``, ``getSessions()`` (most recent first), ``deleteSession(id:)``,
/// ``clear()``, and ``sessions``, a stream of the current list.
///
/// ```swift
/// let history = await client.historyRepository()
/// Task { for await list in history.sessions { render(list) } }   // the list, kept current
/// switch await history.saveSession(playedOffline) {
/// case .success(let stored): …
/// case .error(.featureLocked): showPaywall()
/// case .error(.networkError): retryLater()
/// case .error(.rejected(let code, let message)): log(code, message)
/// }
/// ```
///
/// It talks to the account API (docs/API.md) through a ``HubHTTPClient``: `POST /api/history`,
/// `GET /api/history?full=1` (whole sessions, page after page), `DELETE /api/history[/{id}]`.
/// The list is fetched again after each save and after the ``SessionHubClient`` that made the
/// repository reconnects; when that client receives `historyUpdated` (a session entered the
/// user's history), the one session is fetched and put in its place; deletes and clears update
/// it in place. History is a premium feature: for a
/// free user the reads throw ``SessionHubClientError/refused(code:message:retryAfter:)`` with
/// `feature_locked`, and the saves answer ``HistorySaveError/featureLocked``.
public actor RemoteHistoryRepository {
    private let http: HubHTTPClient
    /// Whole sessions asked for per request (the hub's `http.maxFullHistoryPage` is 20 by default).
    public let pageSize: Int
    /// The list as last fetched or changed; nil before the first fetch.
    private var current: [HistorySession]?
    /// Every change of the list is numbered; a fetch that started before a newer change does
    /// not publish its older list.
    private var version = 0
    private var published = 0
    private var observers: [Int: AsyncStream<[HistorySession]>.Continuation] = [:]
    private var nextObserver = 0

    /// A repository on the hub `http` reaches.
    /// - Parameter pageSize: sessions per request (1…100; at most the hub's `http.maxFullHistoryPage`).
    public init(http: HubHTTPClient, pageSize: Int = 20) {
        self.http = http
        self.pageSize = min(max(pageSize, 1), 100)
    }

    /// The current list, most recent first, and every later version of it: a new stream on each
    /// access, which starts with the list (fetched now if it was never fetched) and keeps only
    /// the newest list when its consumer is slow. Ends when the consumer stops.
    public nonisolated var sessions: AsyncStream<[HistorySession]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [HistorySession].self, bufferingPolicy: .bufferingNewest(1))
        Task { await self.observe(continuation) }
        return stream
    }

    /// Saves a session the app played on its own. Idempotent by `sessionId`: saving the same
    /// session again answers `.success` with the stored one; the hub's own entry is answered
    /// when the hub recorded a session with this id.
    public func saveSession(_ session: HistorySession) async -> HistorySaveResult {
        let body: Data
        do {
            body = try JSONEncoder().encode(session)
        } catch {
            return .error(.rejected(code: "bad_request", message: "the session cannot be encoded: \(error)"))
        }
        let response: HubHTTPClient.Response
        do {
            response = try await http.post("/api/history", json: body)
        } catch {
            return .error(.networkError)
        }
        switch response.status {
        case 200, 201:
            guard let stored = try? JSONDecoder().decode(HistorySession.self, from: response.body) else {
                return .error(.networkError)
            }
            // Put in its place in the list at hand (no refetch of the whole history).
            if current != nil { place(stored) } else { await refreshIfObserved() }
            return .success(stored)
        case 403 where response.errorCode == "feature_locked":
            return .error(.featureLocked)
        case 400..<500 where response.status != 408 && response.status != 429:
            guard case .refused(let code, let message, _) = response.refusal else { return .error(.networkError) }
            return .error(.rejected(code: code, message: message))
        default:
            return .error(.networkError)
        }
    }

    /// Every session of the user, most recent first: whole sessions, ``pageSize`` per request.
    /// - Throws: ``SessionHubClientError``: `refused` with the API's code (`feature_locked` for a
    ///   free user), `transport` or `timedOut` when the hub cannot be reached.
    public func getSessions() async throws -> [HistorySession] {
        let started = version
        var all: [HistorySession] = []
        var seen = Set<String>()
        var cursor: (timestamp: Int64, sessionId: String)?
        while true {
            var path = "/api/history?full=1&limit=\(pageSize)"
            if let cursor { path += "&before=\(cursor.timestamp)&beforeId=\(Self.queryValue(cursor.sessionId))" }
            let response = try await http.get(path)
            guard response.status == 200 else { throw response.refusal }
            let page: Page
            do {
                page = try JSONDecoder().decode(Page.self, from: response.body)
            } catch {
                throw SessionHubClientError.transport("unexpected answer to GET /api/history: \(error)")
            }
            let known = all.count
            for session in page.sessions where seen.insert(session.sessionId).inserted { all.append(session) }
            // The next page starts after this one's last entry (ties on its timestamp included).
            guard page.sessions.count == pageSize, all.count < page.total, all.count > known,
                  let last = page.sessions.last else { break }
            cursor = (last.timestamp, last.sessionId)
        }
        publish(all, asOf: started)
        return all
    }

    /// Deletes one session (also when the hub has none with this id: it is gone either way).
    public func deleteSession(id: String) async throws {
        guard let escaped = id.addingPercentEncoding(withAllowedCharacters: Self.unreserved) else {
            throw SessionHubClientError.transport("cannot put \(id) in a URL")
        }
        let response = try await http.delete("/api/history/\(escaped)")
        guard response.isSuccess || response.errorCode == "not_found" else { throw response.refusal }
        version += 1
        if let current { publish(current.filter { $0.sessionId != id }, asOf: version) }
    }

    /// Deletes every session of the user.
    public func clear() async throws {
        let response = try await http.delete("/api/history")
        guard response.isSuccess else { throw response.refusal }
        version += 1
        publish([], asOf: version)
    }

    /// Fetches the list again for ``sessions``; a failure keeps the previous list.
    public func refresh() async {
        _ = try? await getSessions()
    }

    /// Fetches again only when someone watches or fetched before (after a reconnect).
    func refreshIfObserved() async {
        guard current != nil || !observers.isEmpty else { return }
        await refresh()
    }

    /// The hub said `sessionId` entered the user's history (`historyUpdated`): with a list at
    /// hand, that one session is fetched and put in its place (one request, not the whole
    /// history); without one, or without an id, the list is fetched again. Only when someone
    /// watches or fetched before.
    func sessionUpdated(_ sessionId: String?) async {
        guard current != nil || !observers.isEmpty else { return }
        guard current != nil, let sessionId, let escaped = sessionId.addingPercentEncoding(withAllowedCharacters: Self.unreserved)
        else { return await refresh() }
        guard let response = try? await http.get("/api/history/\(escaped)"), response.status == 200,
              let session = try? JSONDecoder().decode(HistorySession.self, from: response.body), current != nil else {
            return await refresh()
        }
        place(session)
    }

    /// Puts `session` in its place in the current list (replacing an entry with its id) and
    /// publishes the list.
    private func place(_ session: HistorySession) {
        guard let list = current else { return }
        // Most recent first: by timestamp, then sessionId, both descending (the hub's order).
        var merged = list.filter { $0.sessionId != session.sessionId }
        let index = merged.firstIndex { ($0.timestamp, $0.sessionId) < (session.timestamp, session.sessionId) } ?? merged.count
        merged.insert(session, at: index)
        version += 1
        publish(merged, asOf: version)
    }

    private func observe(_ continuation: AsyncStream<[HistorySession]>.Continuation) async {
        nextObserver += 1
        let id = nextObserver
        observers[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        if let current {
            continuation.yield(current)
        } else {
            await refresh()
        }
    }

    private func stopObserving(_ id: Int) {
        observers[id] = nil
    }

    /// Makes `list` current unless the list changed (a save, delete or clear) since `asOf`: a
    /// fetch that started before a change never overwrites it, published or not.
    private func publish(_ list: [HistorySession], asOf: Int) {
        guard asOf >= published, asOf == version else { return }
        published = asOf
        current = list
        for observer in observers.values { observer.yield(list) }
    }

    /// `text` percent-encoded for a query value.
    private static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters (ASCII only).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private struct Page: Decodable {
        let total: Int
        let sessions: [HistorySession]
    }
}
