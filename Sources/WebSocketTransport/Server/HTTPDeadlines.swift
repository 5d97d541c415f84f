import NIOCore

/// The deadlines of one connection's HTTP phase (before a WebSocket upgrade, or for plain HTTP),
/// as a state machine without I/O: every transition returns what to do with the connection's
/// single timer, and ``expire(now:)`` says how to end the connection when it fires.
///
/// - **head**: from accept until the first request head is complete; for a later request on a
///   keep-alive connection, from its first byte until its head is complete. The deadline is set
///   once: bytes dribbled one at a time do not move it.
/// - **body**: from the head until the end of the body.
/// - **idle**: from the end of a keep-alive response until the first byte of the next request.
///
/// While a response is being produced (by the application) no deadline runs; after a WebSocket
/// upgrade none does (the WebSocket keepalive takes over).
struct HTTPDeadlines {
    typealias Phase = HTTPPhase

    /// What to do with the connection's timer.
    enum TimerAction: Equatable {
        /// (Re)arm it for `deadline`, replacing any earlier one.
        case schedule(NIODeadline)
        /// Cancel it.
        case cancel
        /// Leave it as it is.
        case keep
    }

    /// How a connection whose deadline passed ends.
    enum Expiry: Equatable {
        /// Part of a request arrived: answer 408 Request Timeout, then close.
        case requestTimeout(Phase)
        /// Nothing of a request arrived: close without a word.
        case close(Phase)
    }

    private enum State {
        /// Waiting for a request head to complete; `partial` once any byte of it arrived.
        case head(NIODeadline, partial: Bool)
        case body(NIODeadline)
        /// Producing the response; `pending` when bytes of a next request arrived meanwhile.
        case responding(pending: Bool)
        case idle(NIODeadline)
        /// Upgraded or closing: no deadline any more.
        case done
    }

    let headTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let idleTimeout: TimeAmount
    private var state: State

    /// A connection accepted at `now`; arm the timer with ``initialAction``.
    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount, idleTimeout: TimeAmount, now: NIODeadline) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        state = .head(now + headTimeout, partial: false)
    }

    /// The timer for the state right after accept.
    var initialAction: TimerAction {
        if case .head(let deadline, _) = state { return .schedule(deadline) }
        return .keep
    }

    /// Bytes arrived from the peer (before the HTTP decoder saw them).
    mutating func bytesReceived(now: NIODeadline) -> TimerAction {
        switch state {
        case .head(let deadline, false):
            state = .head(deadline, partial: true)
            return .keep
        case .idle:
            let deadline = now + headTimeout
            state = .head(deadline, partial: true)
            return .schedule(deadline)
        case .responding:
            state = .responding(pending: true)
            return .keep
        case .head, .body, .done:
            return .keep
        }
    }

    /// A request head is complete; its body (possibly empty) follows.
    mutating func headReceived(now: NIODeadline) -> TimerAction {
        guard case .head = state else { return .keep }
        let deadline = now + bodyTimeout
        state = .body(deadline)
        return .schedule(deadline)
    }

    /// The request is complete; the application produces the response (no deadline meanwhile).
    mutating func requestReceived() -> TimerAction {
        guard case .body = state else { return .keep }
        state = .responding(pending: false)
        return .cancel
    }

    /// The response went out and the connection stays open for another request.
    mutating func responseSent(now: NIODeadline) -> TimerAction {
        guard case .responding(let pending) = state else { return .keep }
        if pending {
            let deadline = now + headTimeout
            state = .head(deadline, partial: true)
            return .schedule(deadline)
        }
        let deadline = now + idleTimeout
        state = .idle(deadline)
        return .schedule(deadline)
    }

    /// Upgraded, or closing for another reason: no more deadlines.
    mutating func finish() -> TimerAction {
        if case .done = state { return .keep }
        state = .done
        return .cancel
    }

    /// The timer fired at `now`: how the connection ends, or nil when no deadline has passed (a
    /// timer that fired late for a state already left).
    mutating func expire(now: NIODeadline) -> Expiry? {
        let expiry: Expiry
        switch state {
        case .head(let deadline, let partial) where now >= deadline:
            expiry = partial ? .requestTimeout(.head) : .close(.head)
        case .body(let deadline) where now >= deadline:
            expiry = .requestTimeout(.body)
        case .idle(let deadline) where now >= deadline:
            expiry = .close(.idle)
        default:
            return nil
        }
        state = .done
        return expiry
    }
}
