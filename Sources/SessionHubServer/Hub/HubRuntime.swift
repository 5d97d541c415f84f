import HubDomain
import HubProtocol
import Logging

/// What every `/ws` connection shares: the hub, token verification, clock and limits.
struct HubRuntime: Sendable {
    let hub: Hub
    let tokens: TokenAuthority
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

    /// The limits a client is told in `welcome`.
    var advertisedLimits: [(String, Int)] {
        [("maxTextLength", hub.configuration.maxTextLength),
         ("maxMessageBytes", limits.maxMessageBytes),
         ("graceSeconds", Int(hub.configuration.graceWindowMillis / 1000)),
         ("linesPerSecond", Int(limits.linesPerSecond)),
         ("maxPlayersPerSession", hub.configuration.maxPlayersPerSession)]
    }
}
