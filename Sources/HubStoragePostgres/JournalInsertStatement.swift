import PostgresNIO

/// The journal's group commit as a prepared statement: one multi-row insert of a batch, each
/// row stored only while `node` owns its session at the row's epoch (``PostgresJournal``).
///
/// Prepared once per connection of the journal's pool, so PostgreSQL parses and plans it once
/// instead of once per commit.
struct JournalInsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO journal (session_id, seq, epoch, timestamp, kind, body)
        SELECT v.session_id, v.seq, v.epoch, v.ts, v.kind, v.body
        FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[])
             AS v(session_id, seq, epoch, ts, kind, body)
        JOIN sessions s ON s.session_id = v.session_id AND s.owner_node = $7 AND s.epoch = v.epoch AND s.open
        FOR SHARE OF s
        ON CONFLICT (session_id, seq) DO NOTHING
        RETURNING session_id, seq
        """

    /// A stored row: its session and seq.
    typealias Row = (String, Int64)

    var sessions: [String]
    var seqs: [Int64]
    var epochs: [Int64]
    var timestamps: [Int64]
    var kinds: [String]
    var bodies: [String]
    var node: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(sessions)
        bindings.append(seqs)
        bindings.append(epochs)
        bindings.append(timestamps)
        bindings.append(kinds)
        bindings.append(bodies)
        bindings.append(node)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
