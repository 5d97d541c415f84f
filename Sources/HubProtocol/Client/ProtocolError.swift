/// A client message that cannot be processed, with a stable code for the `error` reply.
public struct ProtocolError: Error, Sendable, Equatable {
    /// Stable codes for malformed input (see `docs/PROTOCOL.md`).
    public enum Code: String, Sendable, CaseIterable {
        case malformedJSON = "malformed_json"
        case unknownType = "unknown_type"
        case missingField = "missing_field"
        case invalidField = "invalid_field"
        case invalidIssueType = "invalid_issue_type"
    }

    /// The stable code, sent as the `error` reply's `code`.
    public var code: Code
    /// A human-readable explanation, sent as its `message`.
    public var message: String
    /// The request's `id`, when it could be read.
    public var ref: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, ref: String? = nil) {
        self.code = code
        self.message = message
        self.ref = ref
    }
}
