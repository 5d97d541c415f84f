import HubDomain
import HubProtocol
import Logging

/// What every `/ws` connection shares: the hub, token verification, clock and limits. One
/// instance for the whole server, held by reference, so a connection's endpoint and worker keep
/// a pointer to it rather than a copy each.
final class HubRuntime: Sendable {
    let hub: Hub
    let tokens: HubTokenVerifier
    let clock: any HubClock
    let limits: HubConnectionLimits
    let decoder: ClientMessageDecoder
    let logger: Logger
    /// Profile and history requests.
    let account: AccountRequests
    /// Every authenticated connection by user, for pushes such as `historyUpdated`.
    let channels: UserChannels
    /// Counters for `/metrics`.
    let metrics: HubMetrics
    /// The rates of every connection's four token buckets, from ``limits``.
    let rates: ConnectionRates
    /// The expiry timer every authenticated connection shares.
    let expiries: TokenExpiryWheel

    init(hub: Hub, tokens: HubTokenVerifier, clock: any HubClock, limits: HubConnectionLimits,
         decoder: ClientMessageDecoder, logger: Logger, account: AccountRequests, channels: UserChannels,
         metrics: HubMetrics) {
        self.hub = hub
        self.tokens = tokens
        self.clock = clock
        self.limits = limits
        self.decoder = decoder
        self.logger = logger
        self.account = account
        self.channels = channels
        self.metrics = metrics
        self.expiries = TokenExpiryWheel(clock: clock)
        self.rates = ConnectionRates(limits)
    }

    /// The limits a client is told in `welcome`.
    var advertisedLimits: [(String, Int)] {
        [("maxTextLength", hub.configuration.maxTextLength),
         ("maxMessageBytes", limits.maxMessageBytes),
         ("graceSeconds", Int(hub.configuration.graceWindowMillis / 1000)),
         ("linesPerSecond", Int(limits.linesPerSecond)),
         ("maxPlayersPerSession", hub.configuration.maxPlayersPerSession)]
    }
}
