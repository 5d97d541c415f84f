import PostgresNIO

/// The journal's group commit as a prepared statement: one multi-row insert of a batch, each
/// row stored only while `node` owns its session at the row's epoch (``PostgresJournal``).
///
/// Prepared once per connection of the journal's pool, so PostgreSQL parses and plans it once
/// instead of once per commit.
struct JournalInsertStatement: PostgresPreparedStatement {
    /// The batch's sessions are found by their primary key alone, in a materialized CTE, and
    /// locked `FOR SHARE` there (a fenced one too, until the commit); owner, epoch and `open` are
    /// checked on the rows found (their newest versions, once a concurrent update ended). Offered
    /// to the planner as conditions of the scan, they let it pick the partial index of open
    /// sessions by owner, which statistics taken while few sessions were open cost at one row:
    /// a generic plan then read every open session of the node on every commit
    /// (``PostgresSchema/openSessionsByOwnerIndex``).
    static let sql = """
        WITH s AS MATERIALIZED (
            SELECT session_id, owner_node, epoch, open FROM sessions WHERE session_id = ANY($1::text[]) FOR SHARE
        )
        INSERT INTO journal (session_id, seq, epoch, timestamp, kind, body)
        SELECT v.session_id, v.seq, v.epoch, v.ts, v.kind, v.body
        FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[])
             AS v(session_id, seq, epoch, ts, kind, body)
        JOIN s ON s.session_id = v.session_id AND s.owner_node = $7 AND s.epoch = v.epoch AND s.open
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
