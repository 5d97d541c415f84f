import ArgumentParser

/// `sessionhub-bot`: a headless SessionHub player for tests, demos and CI. The work is done by
/// its `play` subcommand (``PlayCommand``); see `docs/BOT.md`.
@main
struct BotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionhub-bot",
        abstract: "A headless SessionHub player: plays a whole session against a running hub and checks it.",
        discussion: """
            Exit codes: 0 the session went as the protocol promises; 1 a check failed; 2 setup failed \
            (token, connection, authentication); 3 timeout; 64 bad arguments. See docs/BOT.md.
            """,
        subcommands: [PlayCommand.self]
    )
}
