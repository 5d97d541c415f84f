import Logging
import NIOCore
import ServiceLifecycle
import SessionHubServer

/// The hub as a service of the process's `ServiceGroup` (swift-service-lifecycle): it runs until
/// the group shuts down gracefully — SIGTERM or SIGINT — and then drains: alone, it ends and saves
/// every live session; on a cluster with live peers, it hands its sessions over to them. Either
/// way it returns within the drain timeout.
struct HubService: Service {
    /// The server, already started (its port is known, and written to `--port-file`, before the
    /// group runs).
    let server: HubServer
    /// How long closing the connections may take (`server.drainTimeout`).
    let drainDeadline: TimeAmount
    let logger: Logger

    func run() async throws {
        // Cancellation (the group giving up) shuts down the same way as a graceful request.
        try? await gracefulShutdown()
        logger.info("shutting down")
        await server.shutdown(deadline: drainDeadline)
        logger.info("stopped")
    }
}
