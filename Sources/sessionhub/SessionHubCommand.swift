import ArgumentParser

/// `sessionhub`: the hub's command-line entry point.
@main
struct SessionHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionhub",
        abstract: "SessionHub: real-time multiplayer conversation sessions over WebSocket.",
        subcommands: [ServeCommand.self, TokenCommand.self, SettingsCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
