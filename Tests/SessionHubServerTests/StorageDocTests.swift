import Foundation
import HubDomain
import HubStorage
import SessionHubServer
import Testing

/// docs/STORAGE.md names every schema version and table the migrations create, and docs/API.md's
/// example bodies of `/api/profile` and `/api/progress` have exactly the keys the real server
/// sends (a real hub on a real SQLite file).
@Suite("STORAGE.md and API.md match the code", .timeLimit(.minutes(2)))
struct StorageDocTests {
    /// The Migrations section names every step as `vN (name)`, the newest included, and the
    /// Schema section introduces every table with the version that created it.
    @Test func storageDocNamesEverySchemaVersionAndTable() throws {
        let storage = try MarkdownDocument.load("docs/STORAGE.md")
        let migrations = storage.section(titled: "Migrations")
        let schema = storage.section(titled: "Schema")
        #expect(!migrations.isEmpty && !schema.isEmpty)
        let latest = try #require(SQLiteSchema.migrations.last)
        #expect(migrations.contains("v\(latest.version) (\(latest.name))"), "the newest schema version is v\(latest.version)")
        var created: Set<String> = []
        for migration in SQLiteSchema.migrations {
            #expect(migrations.contains("v\(migration.version) (\(migration.name))"), "v\(migration.version) is not named in Migrations")
            for table in Self.createdTables(migration.sql) {
                created.insert(table)
                #expect(schema.contains("**`\(table)`** (v\(migration.version)"), "table \(table) (v\(migration.version)) is not introduced in Schema")
            }
        }
        let introduced = Set(schema.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("**`"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        })
        #expect(introduced == created, "documented tables \(introduced.subtracting(created)) are not created by any migration")
    }

    /// The tables a migration's SQL creates (a table built under another name and renamed in
    /// the same step counts under its final name only).
    static func createdTables(_ sql: String) -> [String] {
        let renamed = Set(firstWords(after: "ALTER TABLE ", in: sql).filter { sql.contains("ALTER TABLE \($0) RENAME TO") })
        return firstWords(after: "CREATE TABLE ", in: sql).filter { !renamed.contains($0) }
    }

    /// The word right after each `marker` in `sql`.
    static func firstWords(after marker: String, in sql: String) -> [String] {
        sql.components(separatedBy: marker).dropFirst().compactMap { rest in
            rest.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "\n" }).first.map(String.init)
        }
    }

    /// docs/API.md's `PUT /api/profile` example body is accepted, and the example answers of
    /// `GET /api/profile` and `GET /api/progress` have the keys the hub really sends.
    @Test func apiDocExamplesHaveTheRealKeys() async throws {
        let blocks = try MarkdownDocument.jsonBlocks(in: MarkdownDocument.load("docs/API.md").text).map { text in
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
        }
        let profileExample = try #require(blocks.first { $0["id"] != nil && $0["isPremium"] != nil })
        let updateExample = try #require(blocks.first { $0["id"] == nil && $0["nativeLanguage"] != nil })
        let progressExample = try #require(blocks.first { $0["progress"] != nil })
        let progressEntry = try #require((progressExample["progress"] as? [[String: Any]])?.first)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-apidoc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let persistence = try HubPersistence.sqlite(path: directory + "/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence) { port, _ in
            let token = HubTestServer.token("ana")
            let fresh = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token)
            #expect(fresh.status == 200)
            #expect(fresh.json?["currentTargetLanguage"] as? String == "en", "API.md: always present, the native language until one is chosen")
            #expect(Set(fresh.json?.keys.map { $0 } ?? []) == Set(profileExample.keys))

            let updated = try await HTTPTestClient.request("PUT", port: port, "/api/profile", token: token, body: updateExample)
            #expect(updated.status == 200, "\(String(decoding: updated.body, as: UTF8.self))")
            #expect(Set(updated.json?.keys.map { $0 } ?? []) == Set(profileExample.keys))
            let read = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token)
            #expect(Set(read.json?.keys.map { $0 } ?? []) == Set(profileExample.keys))

            let empty = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: token)
            #expect((empty.json?["progress"] as? [Any])?.isEmpty == true)
            let player = try await HubTestClient.connect(port: port, token: token)
            _ = try #require(await player.expect("welcome"))
            player.send(["type": "startSolo", "scenarioId": "ordering-coffee"])
            _ = try #require(await player.expect("joined"))
            player.send(["type": "say", "textNative": "Hola", "textTranslated": "Hi"])
            _ = try #require(await player.expect("line"))
            player.send(["type": "end"])
            _ = try #require(await player.expect("ended"))
            let progress = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: token)
            #expect(Set(progress.json?.keys.map { $0 } ?? []) == Set(progressExample.keys))
            let entry = try #require((progress.json?["progress"] as? [[String: Any]])?.first)
            #expect(Set(entry.keys) == Set(progressEntry.keys))
            #expect(entry["language"] as? String == "fr", "the profile's currentTargetLanguage decides the language")
        }
    }
}
