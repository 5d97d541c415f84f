import NIOConcurrencyHelpers
import NIOCore

/// One value per event loop, made on first use. Like the loops of a server, the values live as
/// long as the process and keep their loop alive, so a loop's key is never reused.
public final class PerEventLoop<Value: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[ObjectIdentifier: Value]>([:])
    private let make: @Sendable (any EventLoop) -> Value

    /// Values made by `make` for each loop asked for.
    public init(_ make: @escaping @Sendable (any EventLoop) -> Value) {
        self.make = make
    }

    /// The value of `eventLoop` (made now if it has none yet).
    public func on(_ eventLoop: any EventLoop) -> Value {
        let key = ObjectIdentifier(eventLoop)
        return values.withLockedValue { values in
            if let existing = values[key] { return existing }
            let value = make(eventLoop)
            values[key] = value
            return value
        }
    }
}
