import Foundation

/// A Markdown file of the repository (docs/*.md, README.md) read by the tests that keep the docs
/// and the code together: numbered sections, `###` subsections, pipe tables and the backticked
/// names in their cells.
struct MarkdownDocument {
    /// The whole text.
    let text: String

    /// Reads `path`, relative to the repository root (e.g. `docs/PROTOCOL.md`).
    static func load(_ path: String) throws -> MarkdownDocument {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return MarkdownDocument(text: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
    }

    /// The body of the `## N. …` section (its heading excluded), up to the next `## ` heading;
    /// empty when there is no such section.
    func section(_ number: Int) -> String {
        block(after: { $0.hasPrefix("## \(number). ") }, until: { $0.hasPrefix("## ") })
    }

    /// The body of the `## Title` section whose title starts with `title`, up to the next `## `.
    func section(titled title: String) -> String {
        block(after: { $0.hasPrefix("## \(title)") }, until: { $0.hasPrefix("## ") })
    }

    /// The body of the `### Title` subsection of `text` whose title starts with `title`, up to
    /// the next `##`/`###` heading.
    static func subsection(_ title: String, of text: String) -> String {
        MarkdownDocument(text: text).block(after: { $0.hasPrefix("### \(title)") }, until: { $0.hasPrefix("## ") || $0.hasPrefix("### ") })
    }

    private func block(after start: (String) -> Bool, until end: (String) -> Bool) -> String {
        var lines: [Substring] = []
        var inside = false
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            if !inFence, !line.hasPrefix("```") {
                if inside, end(String(line)) { break }
                if !inside, start(String(line)) { inside = true; continue }
            }
            if inside { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// The pipe tables of `text`, each as its data rows (header and separator left out), each
    /// row as its trimmed cells.
    static func tables(in text: String) -> [[[String]]] {
        var tables: [[[String]]] = []
        var rows: [[String]] = []
        func flush() {
            if rows.count >= 2 { tables.append(Array(rows.dropFirst(2))) }
            rows = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("|") else { flush(); continue }
            rows.append(cells(of: trimmed))
        }
        flush()
        return tables
    }

    /// The cells of one table row; `|` inside backticks does not split.
    private static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var inCode = false
        for character in row.dropFirst() {
            if character == "`" { inCode.toggle() }
            if character == "|", !inCode {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }

    /// The backticked names in `cell` (`` `say` ``, `` `not_allowed` ``), in order.
    static func codes(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The first backticked name of the first cell of every row of `table`.
    static func firstColumnNames(_ table: [[String]]) -> [String] {
        table.compactMap { row in row.first.flatMap { codes(in: $0).first } }
    }

    /// The ```` ```json ```` blocks of `text`.
    static func jsonBlocks(in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```json") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append((current ?? []).joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
