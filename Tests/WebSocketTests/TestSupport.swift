import NIOCore
import WebSocket

/// Builds a masked client frame the way a browser would, for feeding a server connection.
func clientFrameBytes(
    _ opcode: WebSocketOpcode,
    _ payload: [UInt8],
    fin: Bool = true,
    rsv1: Bool = false,
    key: WebSocketMaskKey = WebSocketMaskKey(0x37, 0xFA, 0x21, 0x3D)
) -> [UInt8] {
    let frame = FrameEncoder.clientFrame(opcode: opcode, payload: ByteBuffer(bytes: payload), key: key, fin: fin, rsv1: rsv1)
    return Array(frame.readableBytesView)
}

/// Feeds `bytes` to a connection in pieces of the given sizes (cycled) and collects every event.
func feed(_ connection: inout WebSocketConnection, _ bytes: [UInt8], chunkSizes: [Int] = [Int.max]) -> [WebSocketEvent] {
    var events: [WebSocketEvent] = []
    var offset = 0
    var turn = 0
    while offset < bytes.count {
        let size = max(1, min(chunkSizes[turn % chunkSizes.count], bytes.count - offset))
        turn += 1
        connection.receive(ByteBuffer(bytes: bytes[offset..<(offset + size)]))
        offset += size
        while let event = connection.nextEvent() { events.append(event) }
    }
    return events
}

/// A deterministic generator for property tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension WebSocketEvent {
    /// The message bytes of a text or binary event.
    var messageBytes: [UInt8]? {
        switch self {
        case .text(let b), .binary(let b): return Array(b.readableBytesView)
        default: return nil
        }
    }
    /// The close code of a failure event.
    var failureCode: UInt16? {
        if case .failed(let error) = self { return error.closeCode.rawValue }
        return nil
    }
}

/// Parses the frames a server wrote (unmasked) into (opcode, payload) pairs.
func serverFrames(_ buffer: ByteBuffer?) -> [(WebSocketOpcode, [UInt8])] {
    guard var buffer else { return [] }
    var client = FrameHeaderParser(role: .client, allowsCompression: true, maxFrameSize: .max)
    client.allowsCompression = true
    var frames: [(WebSocketOpcode, [UInt8])] = []
    while case .header(let header) = client.parse(&buffer) {
        let payload = buffer.readBytes(length: header.payloadLength) ?? []
        frames.append((header.opcode, payload))
    }
    return frames
}
