import ArgumentParser

/// `sessionhub-bot`: a headless player (being written).
@main
struct BotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sessionhub-bot", abstract: "A headless SessionHub player.")

    func run() async throws {}
}
