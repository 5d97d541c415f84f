import ArgumentParser
import SessionHubServer

/// `serve --journal sqlite|log`.
extension JournalKind: ExpressibleByArgument {}
