import ArgumentParser
import Foundation
import SessionHubServer

/// `sessionhub token`: mints a development token signed with the hub's secret.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint a bearer token (HS256 JWT) for development and tests."
    )

    @Option(help: "User id (the token's subject).")
    var user: String

    @Option(help: "Display name.")
    var name: String

    @Option(help: "Lifetime in seconds (at most \(TokenPolicy().maxLifetimeSeconds), the hub's default longest token lifetime).")
    var ttl: Int = 86_400

    @Flag(help: "Mint an operator (admin) token.")
    var admin = false

    @Option(help: "Secret file (used when SESSIONHUB_SECRET is not set; created with a random secret if missing).")
    var secretFile: String = "data/dev-secret"

    func validate() throws {
        guard !user.isEmpty, user.utf8.count <= TokenClaims.maxSubjectBytes else {
            throw ValidationError("--user must be 1 to \(TokenClaims.maxSubjectBytes) bytes")
        }
        guard name.utf8.count <= TokenClaims.maxNameBytes else {
            throw ValidationError("--name must be at most \(TokenClaims.maxNameBytes) bytes")
        }
        guard !TokenClaims.hasControlCharacters(user), !TokenClaims.hasControlCharacters(name) else {
            throw ValidationError("--user and --name must not contain control characters (the hub refuses such tokens)")
        }
        let longest = TokenPolicy().maxLifetimeSeconds
        guard ttl > 0, ttl <= longest else {
            throw ValidationError("--ttl must be 1 to \(longest) seconds (the hub's default longest token lifetime)")
        }
    }

    func run() throws {
        let authority = TokenAuthority(secret: try HubSecret.load(file: secretFile))
        let now = Int(Date().timeIntervalSince1970)
        let claims = TokenClaims(sub: user, name: name, iat: now, exp: now + ttl, role: admin ? "admin" : nil)
        FileHandle.standardOutput.write(Data((authority.mint(claims) + "\n").utf8))
    }
}
