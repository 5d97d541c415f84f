import PostgresNIO

/// The text of one statement that ``PreparedQuery`` prepares: an enum per statement, next to
/// the code that runs it, with its parameters written `$1`, `$2`, … in the order they are bound.
protocol PreparedSQL {
    static var sql: String { get }
}

/// A statement of the hub's busy paths (seats, the session directory, an ended session's write,
/// the journal's close) run prepared: PostgreSQL parses `Text.sql` once per connection instead of
/// on every call, and the client sends only the values after that; its plan cache then keeps a
/// generic plan once one costs no more than the calls' own (after five calls), so a lookup by key
/// is planned a handful of times per connection, not every time.
///
/// An ordinary `query` is an unnamed statement, parsed and planned each time; in the cluster
/// benchmark that was about 2 s of PostgreSQL's time per 40 s run, for statements whose plan
/// never changes (lookups and upserts by primary key). Rows come back undecoded
/// (`PostgresRow`): the caller decodes them as it would the rows of a query.
///
/// The parameters' types are those of the values bound on a connection's first use; every call
/// binds the same Swift types in the same order. A `nil` leaves its parameter's type to the
/// server, so a parameter that may be `nil` is cast in the SQL (`$2::text`).
struct PreparedQuery<Text: PreparedSQL>: PostgresPreparedStatement {
    /// The statement's name on the server: the text's type name (private types in different
    /// files may share it) and a hash of the SQL, so that two texts never share a name; shorter
    /// than PostgreSQL's 63 bytes (a longer name would be cut, and two cut names could clash).
    static var name: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in Text.sql.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "\(String(describing: Text.self).prefix(40))_\(String(hash, radix: 16))"
    }

    static var sql: String { Text.sql }

    typealias Row = PostgresRow

    private let bindings: PostgresBindings

    /// Binds `value`s to `$1`, `$2`, … in order.
    init<each Value: PreparedValue>(_ value: repeat each Value) {
        var bindings = PostgresBindings()
        repeat (each value).bind(to: &bindings)
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A value ``PreparedQuery`` binds: what postgres-nio encodes, and optionals of it (`nil` is
/// bound as NULL).
protocol PreparedValue {
    func bind(to bindings: inout PostgresBindings)
}

extension PreparedValue where Self: PostgresDynamicTypeEncodable {
    func bind(to bindings: inout PostgresBindings) { bindings.append(self) }
}

extension Optional: PreparedValue where Wrapped: PostgresDynamicTypeEncodable {
    func bind(to bindings: inout PostgresBindings) { bindings.append(self) }
}

extension String: PreparedValue {}
extension Int: PreparedValue {}
extension Int64: PreparedValue {}
extension Double: PreparedValue {}
extension Bool: PreparedValue {}
extension Array: PreparedValue where Element: PostgresArrayEncodable & PostgresNonThrowingEncodable {}
