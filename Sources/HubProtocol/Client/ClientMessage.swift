/// A decoded client message: the request and its optional `id` (echoed as `ref` in answers).
public struct ClientMessage: Sendable, Equatable {
    /// The client's id for the request (numbers are kept as their decimal text).
    public var id: String?
    /// What is asked.
    public var request: ClientRequest

    /// Creates a message.
    public init(id: String?, request: ClientRequest) {
        self.id = id
        self.request = request
    }
}
