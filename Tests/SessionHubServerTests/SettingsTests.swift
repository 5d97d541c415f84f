import Foundation
import HubDomain
import NIOCore
import Testing
@testable import SessionHubServer

/// The settings tree: one key and one default per limit, loaded from flags, environment and a
/// file with the documented precedence, refused when wrong, and the docs generated from it.
@Suite struct SettingsTests {
    private func load(_ sources: SettingsSources) async throws -> (HubServerConfiguration, SettingsReport) {
        var configuration = HubServerConfiguration(secret: [])
        let report = try await SettingsLoader.load(sources, into: &configuration)
        return (configuration, report)
    }

    private func writeFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func keysAreUniqueAndDefaultsLieInTheirRanges() {
        let keys = SettingsCatalog.all.map(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(Set(SettingsCatalog.all.map(SettingsLoader.flagName(for:))).count == keys.count)
        #expect(Set(SettingsCatalog.all.map(SettingsLoader.environmentName(for:))).count == keys.count)
        for setting in SettingsCatalog.all {
            #expect(setting.components.count == 2, "\(setting.key): group.name")
            if let value = setting.defaultValue {
                #expect(setting.range.contains(value.asDouble), "\(setting.key) default \(value) outside its range")
            } else if setting.kind == .text {
                #expect(SettingsTable.defaultText(setting) == "none", "\(setting.key): an unset text shows as none")
            } else {
                #expect(setting.derivedDefault != nil, "\(setting.key) has neither a default nor a derived one")
            }
        }
    }

    @Test func eachSettingWritesItsOwnProperty() {
        // Writing a value distinct from the default changes that setting and no other.
        for setting in SettingsCatalog.all {
            var configuration = HubServerConfiguration(secret: [])
            let value: SettingValue = setting.kind == .text ? .text("x")
                : setting.kind == .integer || setting.kind == .wholeSeconds
                ? .integer(Int(setting.range.lowerBound) + 1) : .number(setting.range.lowerBound + 0.5)
            setting.write(&configuration, value)
            if setting.kind == .text {
                #expect(setting.value(in: configuration) == value, "\(setting.key)")
            } else {
                #expect(setting.value(in: configuration)?.asDouble == value.asDouble, "\(setting.key)")
            }
            for other in SettingsCatalog.all where other.key != setting.key {
                #expect(other.value(in: configuration) == other.defaultValue, "\(setting.key) also changed \(other.key)")
            }
        }
    }

    @Test func namesComeFromTheKey() throws {
        let setting = try #require(SettingsCatalog.setting("session.maxTextLength"))
        #expect(SettingsLoader.flagName(for: setting) == "--session-max-text-length")
        #expect(SettingsLoader.environmentName(for: setting) == "SESSIONHUB_SESSION_MAX_TEXT_LENGTH")
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() async throws {
        let file = try writeFile(#"{"session": {"maxTextLength": 100, "maxLines": 50}, "connection": {"linesPerSecond": 2}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (configuration, report) = try await load(SettingsSources(
            arguments: ["--session-max-text-length", "300"],
            environment: ["SESSIONHUB_SESSION_MAX_TEXT_LENGTH": "200", "SESSIONHUB_SESSION_MAX_LINES": "70", "PATH": "/bin"],
            file: file))
        #expect(configuration.hub.maxTextLength == 300)
        #expect(configuration.hub.maxLinesPerSession == 70)
        #expect(configuration.connectionLimits.linesPerSecond == 2)
        #expect(configuration.hub.maxRecastsPerSession == HubConfiguration().maxRecastsPerSession)
        #expect(report.applied.map(\.source) == ["file \(file)", "flag --session-max-text-length",
                                                 "environment SESSIONHUB_SESSION_MAX_LINES"])
    }

    @Test func unitsConvert() async throws {
        let (configuration, _) = try await load(SettingsSources(arguments: [
            "--session-grace-window=2.5", "--websocket-ping-interval", "0.25", "--connection-auth-timeout", "3",
            "--server-max-connections", "77",
        ]))
        #expect(configuration.hub.graceWindowMillis == 2500)
        #expect(configuration.timeouts.pingInterval == .milliseconds(250))
        #expect(configuration.connectionLimits.authTimeoutSeconds == 3)
        #expect(configuration.maxConnections == 77)
    }

    @Test func wrongInputIsRefusedWithTheKeyAndTheSource() async throws {
        await #expect(throws: SettingsError.unknownKey("--session-maxlines", source: "flag")) {
            try await load(SettingsSources(arguments: ["--session-maxlines", "3"]))
        }
        await #expect(throws: SettingsError.missingValue(flag: "--session-max-lines")) {
            try await load(SettingsSources(arguments: ["--session-max-lines"]))
        }
        await #expect(throws: SettingsError.unknownKey("7", source: "argument")) {
            try await load(SettingsSources(arguments: ["7"]))
        }
        await #expect(throws: SettingsError.outOfRange(key: "session.maxLines", value: "0", range: "1…1000000",
                                                      source: "flag --session-max-lines")) {
            try await load(SettingsSources(arguments: ["--session-max-lines", "0"]))
        }
        await #expect(throws: SettingsError.self) {
            try await load(SettingsSources(environment: ["SESSIONHUB_SESSION_MAX_LINES": "many"]))
        }
        await #expect(throws: SettingsError.self) {
            try await load(SettingsSources(arguments: ["--session-max-lines", "1.5"]))
        }
        let typo = try writeFile(#"{"session": {"maxLine": 5}}"#)
        defer { try? FileManager.default.removeItem(atPath: typo) }
        await #expect(throws: SettingsError.unknownKey("session.maxLine", source: "file \(typo)")) {
            try await load(SettingsSources(file: typo))
        }
        let notObject = try writeFile("[1, 2]")
        defer { try? FileManager.default.removeItem(atPath: notObject) }
        await #expect(throws: SettingsError.unreadableFile(path: notObject, reason: "not a JSON object")) {
            try await load(SettingsSources(file: notObject))
        }
        await #expect(throws: SettingsError.self) {
            try await load(SettingsSources(file: "/nonexistent/settings.json"))
        }
    }

    /// Text settings (the identity provider's) come from flags, environment and file like the
    /// numbers; a control character or an empty value is refused.
    @Test func textSettingsLoadFromEverySource() async throws {
        let file = try writeFile(#"{"token": {"issuer": "https://idp.example.com/", "audience": "from-file"}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (configuration, report) = try await load(SettingsSources(
            arguments: ["--token-jwks-url", "https://idp.example.com/.well-known/jwks.json"],
            environment: ["SESSIONHUB_TOKEN_AUDIENCE": "my-game"], file: file))
        #expect(configuration.identityProvider.jwksURL == "https://idp.example.com/.well-known/jwks.json")
        #expect(configuration.identityProvider.audience == "my-game")
        #expect(configuration.identityProvider.issuer == "https://idp.example.com/")
        #expect(configuration.identityProvider.jwksFile == nil)
        #expect(report.applied.map(\.key) == ["token.jwksUrl", "token.issuer", "token.audience"])
        await #expect(throws: SettingsError.self) {
            try await load(SettingsSources(environment: ["SESSIONHUB_TOKEN_ISSUER": "bad\u{1}"]))
        }
        await #expect(throws: SettingsError.self) {
            try await load(SettingsSources(arguments: ["--token-audience="]))
        }
    }

    @Test func unknownEnvironmentVariablesAreReportedNotFatal() async throws {
        let (_, report) = try await load(SettingsSources(environment: [
            "SESSIONHUB_SESION_MAX_LINES": "5", "SESSIONHUB_SECRET": "x", "HOME": "/root",
        ]))
        #expect(report.unknownEnvironment == ["SESSIONHUB_SESION_MAX_LINES"])
    }

    @Test func docsCarryTheGeneratedTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let table = SettingsTable.markdown()
        for document in ["README.md", "docs/PROTOCOL.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            let begin = try #require(text.range(of: SettingsTable.beginMarker), "\(document) has no settings table")
            let end = try #require(text.range(of: SettingsTable.endMarker, range: begin.upperBound..<text.endIndex))
            let carried = text[begin.upperBound..<end.lowerBound].trimmingCharacters(in: .newlines)
            #expect(carried == table.trimmingCharacters(in: .newlines),
                    "\(document)'s settings table is stale: regenerate it with `sessionhub settings --markdown`")
        }
    }

    /// End to end: a limit loaded from the environment is the one the hub enforces and advertises.
    @Test func loadedLimitsReachTheRunningHub() async throws {
        var configuration = HubServerConfiguration(port: 0, threads: 1, secret: HubTestServer.secret)
        _ = try await SettingsLoader.load(SettingsSources(environment: ["SESSIONHUB_SESSION_MAX_TEXT_LENGTH": "12"]),
                                          into: &configuration)
        let server = try HubServer(configuration: configuration)
        let port = try await server.start()
        defer { Task { await server.shutdown() } }
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token("lim"))
        let welcome = try #require(await client.expect("welcome"))
        #expect(welcome.object("limits")?.int("maxTextLength") == 12)
        client.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
        _ = try #require(await client.expect("joined"))
        client.send(["type": "say", "id": "ok", "textNative": "Un café.", "textTranslated": "A coffee."])
        #expect(try #require(await client.expect("line")).string("ref") == "ok")
        client.send(["type": "say", "id": "long", "textNative": "Un café con leche.", "textTranslated": "A coffee."])
        let refused = try #require(await client.expect("error"))
        #expect(refused.string("code") == "text_too_long")
        #expect(refused.string("ref") == "long")
        await server.shutdown()
    }
}
