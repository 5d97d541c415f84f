import Foundation
import HubDomain

/// The `body` of a journal row, on SQLite and PostgreSQL alike.
///
/// An entry that carries its broadcast's wire text (``HubDomain/JournalEntry/text``: the hub
/// encodes each broadcast once, for its members and its journal) is stored as that text. Any other
/// entry (made without a wire encoder, as in tests and tools) is stored as a
/// ``StoredSessionEvent``, the only form rows had before. Reading tells them apart by the first
/// bytes: wire text always starts with `{"type":"`, and a stored event has no `type` key.
package enum JournalBody {
    private static let wirePrefix = Array(#"{"type":""#.utf8)

    /// The row's `kind` column and `body` for `entry`.
    package static func encode(_ entry: JournalEntry) throws -> (kind: String, body: [UInt8]) {
        let kind = StoredSessionEvent.Kind(of: entry.event).rawValue
        if let text = entry.text { return (kind, text) }
        return (kind, Array(try SQLiteStore.encode(StoredSessionEvent(entry.event))))
    }

    /// The event a row's `body` holds.
    /// - Throws: ``StorageError`` when the body is wire text and no `decoder` was given, or when
    ///   it cannot be decoded.
    package static func decode<Body: Collection<UInt8>>(_ body: Body, decoder: (any SessionEventDecoder)?) throws -> SessionEvent {
        guard body.starts(with: wirePrefix) else {
            return try SQLiteStore.decode(StoredSessionEvent.self, from: Data(body)).event()
        }
        guard let decoder else {
            throw StorageError("journal: a row holds a broadcast's wire text; open the journal with a SessionEventDecoder")
        }
        do {
            return try decoder.decode(Array(body))
        } catch {
            throw StorageError("journal: cannot decode a broadcast: \(error)")
        }
    }
}
