import FuzzSupport
import NIOCore
import WebSocket

/// Feeds a server-role ``WebSocketConnection`` random bytes, once whole and once split at random
/// points, optionally with permessage-deflate negotiated (so RSV1 frames go through the inflater).
///
/// Input: byte 0 = options (bit 0 compression, bit 1 small limits, bit 2 close first, bit 3 the
/// client's no-context-takeover, bits 4–6 the client's window bits - 8), bytes 1–2 = split seed,
/// the rest = what the client sends.
///
/// Properties: the frame header parser consumes exactly a canonical header or nothing; the
/// connection never traps; one chunk and any split give the same events and the same output;
/// text is valid UTF-8 and no message exceeds the limit; nothing follows `closed`/`failed`; a
/// failure leaves the connection closed with a close frame carrying the error's code; every byte
/// the connection writes parses as valid server frames; a message the server sends reaches a
/// client connection with the same parameters intact.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnection(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(FuzzDriver.bytes(data, size))
    let options = reader.byte()
    let seed = reader.uint16()
    let stream = reader.rest()

    let compression: PerMessageDeflateParameters? = options & 1 != 0
        ? PerMessageDeflateParameters(
            serverNoContextTakeover: true,
            clientNoContextTakeover: options & 8 != 0,
            serverMaxWindowBits: 15,
            clientMaxWindowBits: 8 + Int((options >> 4) & 7))
        : nil
    let configuration = options & 2 != 0
        ? WebSocketConfiguration(maxMessageSize: 256, maxFragmentsPerMessage: 8)
        : WebSocketConfiguration(maxMessageSize: 64 * 1024)
    let closeFirst = options & 4 != 0

    checkHeaderParser(stream, configuration: configuration, compression: compression != nil)

    let whole = run(stream, chunks: [stream.count], configuration: configuration,
                    compression: compression, closeFirst: closeFirst)
    var generator = SplitMix(seed: UInt64(seed))
    var chunks: [Int] = []
    var left = stream.count
    while left > 0 {
        let size = min(left, Int(generator.next() % 24) + (generator.next() % 8 == 0 ? 512 : 0))
        chunks.append(size)
        left -= size
    }
    let split = run(stream, chunks: chunks, configuration: configuration,
                    compression: compression, closeFirst: closeFirst)
    if whole.events != split.events, let compression, compression.clientMaxWindowBits < 15,
       windowOverrunOnly(whole.events, split.events) {
        // A peer that refers back past the window it negotiated (below 15 bits) sends invalid data,
        // but zlib only notices when the distance reaches past its window, not past output it
        // produced in the same call: in one read such a message may inflate (and then fail as
        // invalid UTF-8), in several it fails as invalid compressed data. Both are 1007; only the
        // reason differs, so the close frames' bytes differ too (docs/FUZZING.md).
        return 0
    }
    fuzzCheck(whole.events == split.events, "events differ between one chunk and \(chunks): \(whole.events) vs \(split.events)")
    fuzzCheck(whole.output == split.output, "output differs between one chunk and \(chunks)")
    return 0
}

/// Whether two event lists differ only as a window overrun can make them: with the final 1007
/// failure of either removed, one is a prefix of the other (in one read the overrunning message may
/// still be inflating, or inflate and fail as invalid UTF-8; split, it fails as invalid compressed
/// data — always 1007, never another code, and nothing after it).
private func windowOverrunOnly(_ a: [WebSocketEvent], _ b: [WebSocketEvent]) -> Bool {
    func withoutInvalidPayload(_ events: [WebSocketEvent]) -> (events: [WebSocketEvent], failed: Bool) {
        if case .failed(let error)? = events.last, error.closeCode == .invalidPayload { return (Array(events.dropLast()), true) }
        return (events, false)
    }
    let (x, y) = (withoutInvalidPayload(a), withoutInvalidPayload(b))
    guard x.failed || y.failed else { return false }
    return x.events.starts(with: y.events) || y.events.starts(with: x.events)
}

/// What one run produced.
private struct Outcome {
    var events: [WebSocketEvent] = []
    var output: [UInt8] = []
}

private func run(
    _ stream: [UInt8],
    chunks: [Int],
    configuration: WebSocketConfiguration,
    compression: PerMessageDeflateParameters?,
    closeFirst: Bool
) -> Outcome {
    var connection = WebSocketConnection(role: .server, configuration: configuration, compression: compression)
    var outcome = Outcome()
    if closeFirst, let frame = connection.close(code: .goingAway, reason: "fuzz") {
        outcome.output += frame.readableBytesView
    }
    var offset = 0
    var terminal = false
    for size in chunks {
        connection.receive(ByteBuffer(bytes: stream[offset..<offset + size]))
        offset += size
        while let event = connection.nextEvent() {
            fuzzCheck(!terminal, "an event after closed/failed: \(event)")
            check(event, connection: connection, configuration: configuration)
            if case .closed = event { terminal = true }
            if case .failed = event { terminal = true }
            outcome.events.append(event)
            fuzzCheck(outcome.events.count <= stream.count + 1, "more events than input bytes")
        }
        if let pending = connection.takePendingOutput() {
            outcome.output += pending.readableBytesView
        }
    }
    fuzzCheck(connection.nextEvent() == nil, "an event without new input")
    checkOutput(outcome.output, events: outcome.events, closeFirst: closeFirst)
    if connection.closeState == .open {
        checkRoundTrip(&connection, payload: Array(stream.prefix(300)), configuration: configuration, compression: compression)
    }
    return outcome
}

/// Checks one event against the connection's state and limits.
private func check(_ event: WebSocketEvent, connection: WebSocketConnection, configuration: WebSocketConfiguration) {
    switch event {
    case .text(let buffer):
        fuzzCheck(String(validating: buffer.readableBytesView, as: UTF8.self) != nil, "text message is not UTF-8")
        fuzzCheck(buffer.readableBytes <= configuration.maxMessageSize, "text over the limit")
    case .binary(let buffer):
        fuzzCheck(buffer.readableBytes <= configuration.maxMessageSize, "binary over the limit")
    case .ping(let payload), .pong(let payload):
        fuzzCheck(payload.readableBytes <= 125, "control payload over 125 bytes")
    case .closed(let code, let reason, _):
        fuzzCheck(connection.closeState == .closed, "closed event but state \(connection.closeState)")
        fuzzCheck(code.map { $0.isValidOnWire } ?? true, "closed with invalid code")
        fuzzCheck(reason.utf8.count <= 123, "close reason over 123 bytes")
    case .failed(let error):
        fuzzCheck(connection.closeState == .closed, "failed event but state \(connection.closeState)")
        fuzzCheck(connection.failure == error, "failure not recorded")
        fuzzCheck(connection.shouldCloseTransport, "failed connection keeps its transport")
        fuzzCheck(error.closeCode.isValidOnWire, "failure code \(error.closeCode.rawValue) not valid on the wire")
    }
}

/// Everything the server wrote must parse as valid, unmasked server frames (pongs, close frames);
/// after a failure the last one is a close frame with the error's code.
private func checkOutput(_ output: [UInt8], events: [WebSocketEvent], closeFirst: Bool) {
    let parser = FrameHeaderParser(role: .client, allowsCompression: false, maxFrameSize: 1 << 20)
    var buffer = ByteBuffer(bytes: output)
    var lastClose: [UInt8]?
    while buffer.readableBytes > 0 {
        guard case .header(let header) = parser.parse(&buffer) else {
            fuzzCheck(false, "the connection wrote an invalid frame")
            return
        }
        guard let payload = buffer.readBytes(length: header.payloadLength) else {
            fuzzCheck(false, "the connection wrote a truncated frame")
            return
        }
        fuzzCheck(header.opcode.isControl, "the connection wrote a data frame by itself")
        if header.opcode == .close { lastClose = payload }
    }
    if !closeFirst, case .failed(let error)? = events.last {
        guard let payload = lastClose, payload.count >= 2 else {
            fuzzCheck(false, "failure \(error) without a close frame")
            return
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        fuzzCheck(code == error.closeCode.rawValue, "close frame code \(code) for \(error)")
    }
}

/// A message the (still open) server sends reaches a client connection with the same parameters.
private func checkRoundTrip(
    _ server: inout WebSocketConnection,
    payload: [UInt8],
    configuration: WebSocketConfiguration,
    compression: PerMessageDeflateParameters?
) {
    guard payload.count <= configuration.maxMessageSize,
          let frame = server.send(.binary, payload: ByteBuffer(bytes: payload)) else { return }
    var client = WebSocketConnection(role: .client, configuration: configuration, compression: compression)
    client.receive(frame)
    let event = client.nextEvent()
    fuzzCheck(event == .binary(ByteBuffer(bytes: payload)), "server message did not round-trip: \(String(describing: event))")
}

/// A header the parser accepts is consumed exactly and re-encodes to the same bytes; every shorter
/// prefix of it asks for more data and consumes nothing.
private func checkHeaderParser(_ stream: [UInt8], configuration: WebSocketConfiguration, compression: Bool) {
    let parser = FrameHeaderParser(role: .server, allowsCompression: compression, maxFrameSize: configuration.maxFrameSize)
    var buffer = ByteBuffer(bytes: stream.prefix(16))
    let start = buffer.readerIndex
    switch parser.parse(&buffer) {
    case .needMoreData:
        fuzzCheck(buffer.readerIndex == start, "needMoreData consumed bytes")
    case .invalid:
        fuzzCheck(buffer.readerIndex == start, "an invalid header consumed bytes")
    case .header(let header):
        let consumed = buffer.readerIndex - start
        fuzzCheck(consumed == header.encodedLength, "consumed \(consumed) bytes of a \(header.encodedLength)-byte header")
        fuzzCheck(header.maskKey != nil, "server accepted an unmasked frame")
        fuzzCheck(header.payloadLength <= configuration.maxFrameSize, "frame over the limit")
        fuzzCheck(!header.opcode.isControl || (header.fin && header.payloadLength <= 125), "bad control frame accepted")
        fuzzCheck(!header.rsv2 && !header.rsv3, "reserved bits accepted")
        var encoded = ByteBuffer()
        FrameEncoder.writeHeader(header, into: &encoded)
        fuzzCheck(Array(encoded.readableBytesView) == Array(stream.prefix(consumed)), "header does not re-encode to its bytes")
        for length in 0..<consumed {
            var prefix = ByteBuffer(bytes: stream.prefix(length))
            fuzzCheck(parser.parse(&prefix) == .needMoreData && prefix.readerIndex == 0, "a \(length)-byte prefix is not needMoreData")
        }
    }
}

@main
enum FuzzConnectionMain {
    static func main() {
        FuzzDriver.run(fuzzConnection)
    }
}
