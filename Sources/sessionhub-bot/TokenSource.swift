/// Where each player's bearer token comes from.
enum TokenSource: Sendable {
    /// Tokens given on the command line (`--token`, once per player).
    case fixed([String])
    /// A command that prints a token for `--user ID --name NAME` appended to it (`--token-cmd`).
    case command(String)

    /// The token for the `index`-th player, who should be `userId` called `displayName`.
    func token(forPlayer index: Int, userId: String, displayName: String) async throws(BotFailure) -> String {
        switch self {
        case .fixed(let tokens):
            guard tokens.indices.contains(index) else {
                throw .setup("player \(index + 1) has no token: give --token once per player, or use --token-cmd")
            }
            return tokens[index]
        case .command(let command):
            let output = try await ShellCommand(command).run(appending: ["--user", userId, "--name", displayName])
            let token = output.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty, !token.contains(where: \.isWhitespace) else {
                throw .setup("--token-cmd printed no single token for \(userId): \(output.prefix(200))")
            }
            return token
        }
    }
}
