import Foundation
import HubDomain

/// Reads a session broadcast back from its wire text (what ``ServerMessageEncoder/broadcast(_:)``
/// wrote and the journal kept): the journal's ``HubDomain/SessionEventDecoder``.
public struct BroadcastDecoder: SessionEventDecoder {
    /// Why a text is not a journaled broadcast.
    public struct Failure: Error, CustomStringConvertible {
        /// What was wrong.
        public let description: String
    }

    /// Creates a decoder.
    public init() {}

    /// The event `text` encodes.
    /// - Throws: ``Failure`` for text that is not one of the broadcasts a journal keeps (every
    ///   kind but `ended`), or ``ServerMessageDecoder/Failure``.
    public func decode(_ text: [UInt8]) throws -> SessionEvent {
        switch try ServerMessageDecoder().decode(Data(text)) {
        case .participants(let b): return .participants(change: b.change, participants: b.participants)
        case .line(let b): return .line(b.line, ref: b.ref)
        case .recast(let b): return .recast(b.recast, ref: b.ref)
        case .recastAccepted(let b): return .recastAccepted(recastId: b.recastId, lineId: b.lineId, userId: b.userId, ref: b.ref)
        case .hostChanged(let b): return .hostChanged(userId: b.userId)
        case .stats(let b): return .stats(b.participants)
        case let other: throw Failure(description: "a journal holds no \(other.type) message")
        }
    }
}
