import NIOCore

/// One WebSocket connection's protocol state, without I/O: feed it received bytes with
/// ``receive(_:)``, take events from ``nextEvent()``, encode outgoing frames with the `send`
/// methods, and write whatever ``takePendingOutput()`` returns (pongs, close replies).
///
/// It parses frames incrementally from input split at any byte, streams each frame's payload
/// into the message as it arrives (unmasking a vector at a time), validates UTF-8 as it goes so
/// invalid text fails before the message ends, inflates permessage-deflate messages in bounded
/// steps, enforces every limit of ``WebSocketConfiguration`` and runs the close handshake
/// (RFC 6455 §7). A protocol violation queues a close frame with the right code and surfaces
/// as ``WebSocketEvent/failed(_:)``; it never throws or traps.
///
/// Not thread-safe: one connection belongs to one event loop (or one task).
public struct WebSocketConnection {
    /// Where the close handshake stands.
    public enum CloseState: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// We sent a close frame and wait for the peer's.
        case closeSent
        /// Both close frames were exchanged, or the connection was failed: close TCP.
        case closed
    }

    /// This endpoint's role.
    public let role: WebSocketRole
    /// The limits in force.
    public let configuration: WebSocketConfiguration
    /// The negotiated permessage-deflate parameters, if any.
    public let compression: PerMessageDeflateParameters?
    /// The close handshake's state.
    public private(set) var closeState: CloseState = .open
    /// The error that failed the connection, if one did.
    public private(set) var failure: WebSocketProtocolError?

    private let allocator: ByteBufferAllocator
    private var headerParser: FrameHeaderParser
    private var input = ByteBuffer()
    /// An empty buffer to put in place of a drained `input`: one for the process, not a copy in
    /// every connection (`ByteBuffer()` does more work on each call than reading this).
    private static let emptyInput = ByteBuffer()
    private var frame: FrameInProgress?
    private var message: MessageInProgress?
    private var control: ByteBuffer?
    private var pendingOutput: ByteBuffer?
    private var compressionCodecs: CompressionCodecs?

    /// The frame whose payload is being read.
    private struct FrameInProgress {
        var header: FrameHeader
        var remaining: Int
        var maskPhase: Int = 0
    }

    /// The data message being assembled.
    private struct MessageInProgress {
        var opcode: WebSocketOpcode
        var compressed: Bool
        var buffer: ByteBuffer
        var fragments: Int = 0
        var utf8 = UTF8Validator()
        /// Index up to which `buffer` was checked for UTF-8 (compressed text only).
        var validatedIndex: Int
    }

    /// Creates a connection that has completed its opening handshake.
    ///
    /// - Parameters:
    ///   - role: server or client.
    ///   - configuration: limits.
    ///   - compression: the permessage-deflate parameters the handshake negotiated, or nil.
    ///   - allocator: where message buffers come from.
    public init(
        role: WebSocketRole,
        configuration: WebSocketConfiguration = .default,
        compression: PerMessageDeflateParameters? = nil,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) {
        self.role = role
        self.configuration = configuration
        self.compression = compression
        self.allocator = allocator
        self.headerParser = FrameHeaderParser(role: role, allowsCompression: compression != nil,
                                              maxFrameSize: configuration.maxFrameSize)
    }

    // MARK: Input

    /// Hands received bytes to the connection; they are consumed from `bytes`.
    /// After the close handshake or a failure, input is discarded.
    public mutating func receive(_ bytes: inout ByteBuffer) {
        guard closeState != .closed, bytes.readableBytes > 0 else {
            bytes.moveReaderIndex(forwardBy: bytes.readableBytes)
            return
        }
        if input.readableBytes == 0 {
            input = bytes
        } else {
            input.writeBuffer(&bytes)
        }
        bytes.moveReaderIndex(to: bytes.writerIndex)
    }

    /// Hands received bytes to the connection.
    public mutating func receive(_ bytes: ByteBuffer) {
        var copy = bytes
        receive(&copy)
    }

    /// Bytes received but not yet parsed (less than one frame's worth, or the rest of a frame).
    public var bufferedInputBytes: Int { input.readableBytes }

    /// Parses as far as the buffered input allows and returns the next event, or nil when more
    /// input is needed (or the connection is closed).
    public mutating func nextEvent() -> WebSocketEvent? {
        while closeState != .closed {
            if frame == nil {
                switch headerParser.parse(&input) {
                case .needMoreData:
                    releaseInputIfDrained()
                    return nil
                case .invalid(let error):
                    return fail(error)
                case .header(let header):
                    if let error = beginFrame(header) { return fail(error) }
                }
            }
            guard var current = frame else { continue }
            let available = min(current.remaining, input.readableBytes)
            if available == 0 && current.remaining > 0 {
                releaseInputIfDrained()
                return nil
            }
            if available > 0 {
                if let error = consumePayload(&current, count: available) { return fail(error) }
            }
            if current.remaining > 0 {
                frame = current
                releaseInputIfDrained()
                return nil
            }
            frame = nil
            if let event = finishFrame(current.header) { return event }
        }
        return nil
    }

    /// Drops the reference to a fully consumed input buffer so its memory can be reused.
    private mutating func releaseInputIfDrained() {
        if input.readableBytes == 0, input.capacity > 0 {
            input = Self.emptyInput
        } else if input.readerIndex > 64 * 1024 {
            input.discardReadBytes()
        }
    }

    /// Checks message-level rules at the start of a frame and prepares its destination.
    private mutating func beginFrame(_ header: FrameHeader) -> WebSocketProtocolError? {
        if header.opcode.isControl {
            control = allocator.buffer(capacity: header.payloadLength)
        } else if header.opcode == .continuation {
            guard var current = message else {
                return .protocolViolation("continuation frame without a message in progress")
            }
            current.fragments += 1
            if current.fragments > configuration.maxFragmentsPerMessage {
                return .messageTooLarge("message spans more than \(configuration.maxFragmentsPerMessage) frames")
            }
            if !current.compressed,
               current.buffer.readableBytes + header.payloadLength > configuration.maxMessageSize {
                return .messageTooLarge("message exceeds \(configuration.maxMessageSize) bytes")
            }
            message = current
        } else {
            guard message == nil else {
                return .protocolViolation("new data frame while a fragmented message is in progress")
            }
            if !header.rsv1, header.payloadLength > configuration.maxMessageSize {
                return .messageTooLarge("message exceeds \(configuration.maxMessageSize) bytes")
            }
            let headroom = configuration.messageHeadroom
            let expected = header.rsv1 ? min(header.payloadLength * 2, configuration.maxMessageSize) : header.payloadLength
            var buffer = allocator.buffer(capacity: headroom + expected)
            buffer.moveWriterIndex(forwardBy: headroom)
            buffer.moveReaderIndex(forwardBy: headroom)
            message = MessageInProgress(opcode: header.opcode, compressed: header.rsv1, buffer: buffer,
                                        fragments: 1, validatedIndex: buffer.readerIndex)
        }
        frame = FrameInProgress(header: header, remaining: header.payloadLength)
        return nil
    }

    /// Moves `count` payload bytes of the current frame from the input to their destination.
    private mutating func consumePayload(_ current: inout FrameInProgress, count: Int) -> WebSocketProtocolError? {
        let key = current.header.maskKey
        let phase = current.maskPhase
        defer {
            current.remaining -= count
            current.maskPhase = (current.maskPhase + count) & 3
        }
        let source = input
        if current.header.opcode.isControl {
            control?.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
                Self.copy(from: source, count: count, to: destination, key: key, phase: phase)
            }
            input.moveReaderIndex(forwardBy: count)
            return nil
        }
        guard var assembly = message else {
            return .internalError("payload without a message")
        }
        message = nil
        defer { message = assembly }
        if assembly.compressed {
            var chunk = input.readSlice(length: count) ?? ByteBuffer()
            if let key {
                chunk.withUnsafeMutableReadableBytes { raw in
                    if let base = raw.baseAddress {
                        Masking.apply(key: key, phase: phase, to: base, count: raw.count)
                    }
                }
            }
            if let error = inflate(chunk, isFinal: false, into: &assembly) { return error }
            return nil
        }
        let start = assembly.buffer.writerIndex
        assembly.buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
            Self.copy(from: source, count: count, to: destination, key: key, phase: phase)
        }
        input.moveReaderIndex(forwardBy: count)
        if assembly.opcode == .text {
            if !Self.validate(&assembly.utf8, assembly.buffer, from: start, to: start + count) { return .invalidUTF8 }
        }
        return nil
    }

    /// Copies (and unmasks, when `key` is set) `count` bytes from the front of `input`.
    private static func copy(
        from input: ByteBuffer,
        count: Int,
        to destination: UnsafeMutableRawBufferPointer,
        key: WebSocketMaskKey?,
        phase: Int
    ) -> Int {
        input.withUnsafeReadableBytes { source in
            guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
            if let key {
                Masking.transform(key: key, phase: phase, from: src, to: dst, count: count)
            } else {
                dst.copyMemory(from: src, byteCount: count)
            }
        }
        return count
    }

    /// Inflates a piece of a compressed message into it, validating new text as it appears.
    private mutating func inflate(_ chunk: ByteBuffer, isFinal: Bool, into current: inout MessageInProgress) -> WebSocketProtocolError? {
        guard let compression else { return .internalError("compressed frame without compression") }
        var failure: WebSocketProtocolError?
        do {
            let inflater = try codecs(for: compression).inflater()
            try inflater.inflate(chunk, isFinal: isFinal, into: &current.buffer, limit: configuration.maxMessageSize)
        } catch PerMessageDeflateError.messageTooLarge {
            failure = .messageTooLarge("message exceeds \(configuration.maxMessageSize) bytes after inflation")
        } catch PerMessageDeflateError.corruptData {
            failure = .invalidCompressedData
        } catch {
            failure = .internalError("inflate failed")
        }
        // The text inflated before an inflate error is checked first: invalid UTF-8 there comes
        // earlier in the stream than the error, so the connection fails with 1007 whether the
        // frame arrived in one read or in many (found by Fuzzing/, target connection).
        if current.opcode == .text {
            let from = current.validatedIndex
            let to = current.buffer.writerIndex
            current.validatedIndex = to
            if !Self.validate(&current.utf8, current.buffer, from: from, to: to) { return .invalidUTF8 }
        }
        return failure
    }

    /// Runs `validator` over the bytes of `buffer` between two absolute indices.
    private static func validate(_ validator: inout UTF8Validator, _ buffer: ByteBuffer, from: Int, to: Int) -> Bool {
        guard to > from else { return true }
        return buffer.withUnsafeReadableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            return validator.validate(base + (from - buffer.readerIndex), count: to - from)
        }
    }

    /// Completes a frame whose payload has all arrived; returns an event when one results.
    private mutating func finishFrame(_ header: FrameHeader) -> WebSocketEvent? {
        if header.opcode.isControl {
            let payload = control ?? ByteBuffer()
            control = nil
            return handleControl(header.opcode, payload: payload)
        }
        guard header.fin, var current = message else { return nil }
        message = nil
        if current.compressed {
            if let error = inflate(ByteBuffer(), isFinal: true, into: &current) { return fail(error) }
        }
        if current.opcode == .text {
            guard current.utf8.isComplete else { return fail(.invalidUTF8) }
        }
        if closeState == .closeSent {
            // We are closing: data after our close frame is discarded (RFC 6455 §5.5.1).
            return nil
        }
        // The buffer is ours alone here, so writing into its headroom costs no copy; an endpoint
        // that sends it back unchanged (echo, relay) then needs no copy either.
        if role == .server {
            FrameEncoder.prepareServerHeader(opcode: current.opcode, in: &current.buffer)
        }
        return current.opcode == .text ? .text(current.buffer) : .binary(current.buffer)
    }

    private mutating func handleControl(_ opcode: WebSocketOpcode, payload: ByteBuffer) -> WebSocketEvent? {
        switch opcode {
        case .ping:
            if configuration.replyToPings, closeState == .open {
                appendOutput(FrameEncoder.frame(for: role, opcode: .pong, payload: payload, allocator: allocator))
            }
            return .ping(payload)
        case .pong:
            return .pong(payload)
        case .close:
            return handleClose(payload)
        default:
            return nil
        }
    }

    private mutating func handleClose(_ payload: ByteBuffer) -> WebSocketEvent? {
        var body = payload
        var code: WebSocketCloseCode?
        var reason = ""
        switch body.readableBytes {
        case 0:
            break
        case 1:
            return fail(.protocolViolation("close frame with a 1-byte payload"))
        default:
            guard let raw = body.readInteger(as: UInt16.self) else { return fail(.protocolViolation("bad close frame")) }
            let received = WebSocketCloseCode(rawValue: raw)
            guard received.isValidOnWire else {
                return fail(.protocolViolation("invalid close code \(raw)"))
            }
            var validator = UTF8Validator()
            let valid = body.withUnsafeReadableBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return true }
                return validator.validate(base, count: raw.count)
            }
            guard valid, validator.isComplete else { return fail(.invalidUTF8) }
            code = received
            reason = String(decoding: body.readableBytesView, as: UTF8.self)
        }
        let initiatedByPeer = closeState == .open
        if initiatedByPeer {
            // Echo the status code (RFC 6455 §5.5.1); an empty close gets an empty reply.
            var reply = allocator.buffer(capacity: 2)
            if let code { reply.writeInteger(code.rawValue) }
            appendOutput(FrameEncoder.frame(for: role, opcode: .close, payload: reply, allocator: allocator))
        }
        closeState = .closed
        releaseState()
        return .closed(code: code, reason: reason, initiatedByPeer: initiatedByPeer)
    }

    /// Fails the connection: queues a close frame with the error's code (unless one was already
    /// sent) and stops parsing.
    private mutating func fail(_ error: WebSocketProtocolError) -> WebSocketEvent {
        if closeState == .open {
            appendOutput(closeFrame(code: error.closeCode, reason: error.reason))
        }
        closeState = .closed
        failure = error
        releaseState()
        return .failed(error)
    }

    private mutating func releaseState() {
        input = ByteBuffer()
        frame = nil
        message = nil
        control = nil
        compressionCodecs = nil
    }

    // MARK: Output

    /// Whether frames the connection produced itself (pongs, close replies) await writing.
    public var hasPendingOutput: Bool { (pendingOutput?.readableBytes ?? 0) > 0 }

    /// Takes the bytes the connection produced itself; write them before anything sent later.
    public mutating func takePendingOutput() -> ByteBuffer? {
        defer { pendingOutput = nil }
        return pendingOutput
    }

    private mutating func appendOutput(_ bytes: ByteBuffer) {
        if pendingOutput == nil {
            pendingOutput = bytes
        } else {
            var copy = bytes
            pendingOutput?.writeBuffer(&copy)
        }
    }

    /// Whether the transport should now close the TCP connection: after the close handshake
    /// the server closes first (RFC 6455 §7.1.1); after a failure either side closes.
    public var shouldCloseTransport: Bool {
        closeState == .closed && (role == .server || failure != nil)
    }

    /// Encodes a data message as one frame, compressing it when permessage-deflate was negotiated
    /// and the message is at least ``PerMessageDeflateConfiguration/minimumCompressedSize`` bytes.
    /// Returns nil once a close frame was sent (no data may follow it).
    public mutating func send(_ opcode: WebSocketOpcode, payload: ByteBuffer, compress: Bool = true) -> ByteBuffer? {
        guard closeState == .open, opcode == .text || opcode == .binary else { return nil }
        if compress, let compression, payload.readableBytes >= minimumCompressedSize,
           let compressed = try? deflate(payload, parameters: compression) {
            return FrameEncoder.frame(for: role, opcode: opcode, payload: compressed, rsv1: true, allocator: allocator)
        }
        return FrameEncoder.frame(for: role, opcode: opcode, payload: payload, allocator: allocator)
    }

    /// Encodes one fragment of a message (`opcode` is text/binary for the first, continuation
    /// after); fragments are never compressed. Returns nil once a close frame was sent.
    public mutating func sendFragment(_ opcode: WebSocketOpcode, payload: ByteBuffer, fin: Bool) -> ByteBuffer? {
        guard closeState == .open, !opcode.isControl else { return nil }
        return FrameEncoder.frame(for: role, opcode: opcode, payload: payload, fin: fin, allocator: allocator)
    }

    /// Encodes a ping (payload truncated to 125 bytes).
    public mutating func ping(_ payload: ByteBuffer = ByteBuffer()) -> ByteBuffer? {
        guard closeState == .open else { return nil }
        return FrameEncoder.frame(for: role, opcode: .ping, payload: payload.getSlice(at: payload.readerIndex, length: min(125, payload.readableBytes)) ?? ByteBuffer(), allocator: allocator)
    }

    /// Encodes a pong (payload truncated to 125 bytes).
    public mutating func pong(_ payload: ByteBuffer = ByteBuffer()) -> ByteBuffer? {
        guard closeState == .open else { return nil }
        return FrameEncoder.frame(for: role, opcode: .pong, payload: payload.getSlice(at: payload.readerIndex, length: min(125, payload.readableBytes)) ?? ByteBuffer(), allocator: allocator)
    }

    /// Starts the close handshake: encodes a close frame and moves to ``CloseState/closeSent``.
    /// Returns nil when a close frame was already sent. Codes not valid on the wire are replaced
    /// by 1000; the reason is cut to 123 bytes at a character boundary.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") -> ByteBuffer? {
        guard closeState == .open else { return nil }
        closeState = .closeSent
        return closeFrame(code: code.isValidOnWire ? code : .normalClosure, reason: reason)
    }

    private func closeFrame(code: WebSocketCloseCode, reason: String) -> ByteBuffer {
        var payload = allocator.buffer(capacity: 2 + min(123, reason.utf8.count))
        payload.writeInteger(code.rawValue)
        var taken = 0
        for scalar in reason.unicodeScalars {
            let size = String(scalar).utf8.count
            if taken + size > 123 { break }
            taken += size
        }
        payload.writeBytes(reason.utf8.prefix(taken))
        return FrameEncoder.frame(for: role, opcode: .close, payload: payload, allocator: allocator)
    }

    // MARK: Compression

    private var minimumCompressedSize: Int { compressionSettings.minimumCompressedSize }

    /// Compression settings used when this endpoint creates its codecs.
    public var compressionSettings: PerMessageDeflateConfiguration = .default

    private mutating func codecs(for parameters: PerMessageDeflateParameters) throws -> CompressionCodecs {
        if let compressionCodecs { return compressionCodecs }
        let created = CompressionCodecs(role: role, parameters: parameters, settings: compressionSettings)
        compressionCodecs = created
        return created
    }

    private mutating func deflate(_ payload: ByteBuffer, parameters: PerMessageDeflateParameters) throws -> ByteBuffer {
        let deflater = try codecs(for: parameters).deflater()
        var output = allocator.buffer(capacity: FrameHeader.encodedLength(payloadLength: payload.readableBytes, masked: false) + payload.readableBytes / 2 + 16)
        let headroom = 14
        output.moveWriterIndex(forwardBy: headroom)
        output.moveReaderIndex(forwardBy: headroom)
        deflater.compress(payload, into: &output)
        return output
    }
}
