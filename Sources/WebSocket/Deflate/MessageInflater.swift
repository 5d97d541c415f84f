import CZlib
import NIOCore

/// Decompresses the messages of one direction of a permessage-deflate connection (RFC 7692 §7.2.2),
/// one frame payload at a time, with a hard bound on the decompressed size of each message.
///
/// The payload of a message is a run of DEFLATE blocks; the receiver appends `00 00 ff ff` at the end
/// of the message and inflates. Blocks with `BFINAL` set are allowed anywhere in a message
/// (RFC 7692 §7.2.3.4): the stream restarts after them and keeps its window.
///
/// A class because it owns a zlib stream, which `deinit` frees. Not `Sendable`: use it from one thread
/// (or one event loop) at a time. Memory: about 7 KiB of zlib state from `init`, plus the window
/// (`1 << windowBits` bytes, 32 KiB at 15) on first use; see `docs/DEFLATE.md`.
public final class MessageInflater {
    /// The window the peer compresses with, `8...15`.
    public let windowBits: Int
    /// Whether the stream is reset after every message (the peer's `*_no_context_takeover`).
    public let noContextTakeover: Bool

    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether input was consumed since the stream was last known to sit on a block boundary (the
    /// start of the message, or the end of a `BFINAL` block).
    private var inputSinceBoundary = false

    /// The most output requested from zlib in one call: bounds the growth of `output` per step.
    private static let maximumStep = 256 * 1024

    /// Creates an inflater and its zlib stream.
    ///
    /// - Parameters:
    ///   - windowBits: the window the peer compresses with, `8...15` (15 when unsure: a larger window
    ///     always works). 8 is raised to 9, which costs 256 bytes and also accepts peers whose older
    ///     zlib silently compressed with 9 bits when asked for 8.
    ///   - noContextTakeover: reset after each message.
    /// - Throws: ``PerMessageDeflateError/zlibFailure(_:)`` with `Z_STREAM_ERROR` (-2) for window bits
    ///   out of range, or zlib's code when it cannot allocate its state.
    public init(windowBits: Int, noContextTakeover: Bool) throws(PerMessageDeflateError) {
        guard (8...15).contains(windowBits) else {
            throw .zlibFailure(Z_STREAM_ERROR)
        }
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        // Initialize zlib before `self` is complete: a throwing init must not reach `deinit`.
        self.stream = try ZlibStream.make { sessionhub_inflateInit2($0, -Int32(max(windowBits, 9))) }
    }

    deinit {
        ZlibStream.free(stream) { inflateEnd($0) }
    }

    /// Inflates one frame's payload of a compressed message and appends the result to `output`.
    ///
    /// - Parameters:
    ///   - fragment: the (unmasked) payload of one frame of the message; may be empty.
    ///   - isFinal: whether this frame ends the message (FIN set). The `00 00 ff ff` tail is then
    ///     inflated too, the message must end on a block boundary, and with no context takeover the
    ///     stream is reset.
    ///   - output: where the decompressed bytes are appended; pass the same buffer for every frame of
    ///     a message.
    ///   - limit: the most bytes `output.readableBytes` may reach. Inflation proceeds in bounded steps
    ///     and stops as soon as one more byte would exceed it, so a decompression bomb never makes
    ///     `output` grow past the next power of two of `limit` (ByteBuffer's growth rule).
    /// - Throws: ``PerMessageDeflateError/messageTooLarge`` when the message exceeds `limit`,
    ///   ``PerMessageDeflateError/corruptData`` for invalid DEFLATE data or a message that does not
    ///   end on a block boundary, ``PerMessageDeflateError/zlibFailure(_:)`` when zlib fails (out of
    ///   memory). After any error call ``reset()`` before reuse (normally: close the connection).
    public func inflate(
        _ fragment: ByteBuffer,
        isFinal: Bool,
        into output: inout ByteBuffer,
        limit: Int
    ) throws(PerMessageDeflateError) {
        let result = fragment.withUnsafeReadableBytes { payload in
            self.feed(payload, into: &output, limit: limit)
        }
        try result.get()
        guard isFinal else { return }
        defer {
            self.inputSinceBoundary = false
            if self.noContextTakeover {
                inflateReset(self.stream)
            }
        }
        // A message with no data since a block boundary (an empty payload, or one ended by a BFINAL
        // block) needs no tail: the stream already sits where the next message starts.
        guard self.inputSinceBoundary else { return }
        let tailResult = Self.tail.withUnsafeBytes { tail in
            self.feed(tail, into: &output, limit: limit)
        }
        try tailResult.get()
        // With the tail, a well-formed message ends on a block boundary (zlib: 128 in data_type means
        // "waiting for the next block header"). Anything else is truncated data that would make the
        // next message decode as garbage.
        if self.inputSinceBoundary && self.stream.pointee.data_type & 128 == 0 {
            throw .corruptData
        }
    }

    /// Discards any context and partial message: the next payload is inflated as a new message
    /// from an empty window.
    public func reset() {
        inflateReset(self.stream)
        self.inputSinceBoundary = false
    }

    /// The empty stored block's LEN/NLEN that RFC 7692 §7.2.2 appends to every message.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Inflates all of `input`, appending to `output` while keeping `output.readableBytes <= limit`.
    private func feed(
        _ input: UnsafeRawBufferPointer,
        into output: inout ByteBuffer,
        limit: Int
    ) -> Result<Void, PerMessageDeflateError> {
        guard let base = input.baseAddress?.assumingMemoryBound(to: Bytef.self), input.count > 0 else {
            return .success(())
        }
        defer {
            self.stream.pointee.next_in = nil
            self.stream.pointee.avail_in = 0
            self.stream.pointee.next_out = nil
            self.stream.pointee.avail_out = 0
        }
        var loaded = 0
        while true {
            if self.stream.pointee.avail_in == 0 && loaded < input.count {
                // zlib counts input in 32 bits: feed at most 1 GiB per call.
                let chunk = min(input.count - loaded, 1 << 30)
                self.stream.pointee.next_in = UnsafeMutablePointer(mutating: base + loaded)
                self.stream.pointee.avail_in = uInt(chunk)
                loaded += chunk
                self.inputSinceBoundary = true
            }
            let room = limit - output.readableBytes
            let inputBefore = self.stream.pointee.avail_in
            let outputBefore = output.readableBytes
            let status: Int32
            let outputSpaceLeft: Bool
            if room > 0 {
                // Grow output in steps related to the input, so small messages stay small.
                let estimate = max(1024, Int(self.stream.pointee.avail_in) * 4)
                let step = min(room, estimate, Self.maximumStep)
                var stepStatus = Z_OK
                var spaceLeft = false
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: step) { buffer in
                    let capacity = min(buffer.count, room, Self.maximumStep)
                    self.stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    self.stream.pointee.avail_out = uInt(capacity)
                    stepStatus = CZlib.inflate(self.stream, Z_SYNC_FLUSH)
                    spaceLeft = self.stream.pointee.avail_out > 0
                    return capacity - Int(self.stream.pointee.avail_out)
                }
                status = stepStatus
                outputSpaceLeft = spaceLeft
            } else {
                // At the limit: inflate into one spare byte. Producing it means the message is too large.
                var spare: UInt8 = 0
                status = withUnsafeMutablePointer(to: &spare) { pointer in
                    self.stream.pointee.next_out = pointer
                    self.stream.pointee.avail_out = 1
                    return CZlib.inflate(self.stream, Z_SYNC_FLUSH)
                }
                if self.stream.pointee.avail_out == 0 {
                    return .failure(.messageTooLarge)
                }
                outputSpaceLeft = true
            }
            switch status {
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // No progress although input and output space were offered: never expected from zlib,
                // but never loop on it.
                let stalled = self.stream.pointee.avail_in == inputBefore && output.readableBytes == outputBefore
                if stalled && inputBefore > 0 {
                    return .failure(.zlibFailure(status))
                }
            case Z_STREAM_END:
                // A BFINAL block ended zlib's stream; more blocks may follow in this message.
                if let error = self.restartKeepingWindow() {
                    return .failure(error)
                }
                self.inputSinceBoundary = self.stream.pointee.avail_in > 0 || loaded < input.count
            case Z_DATA_ERROR, Z_NEED_DICT:
                return .failure(.corruptData)
            default:
                return .failure(.zlibFailure(status))
            }
            if outputSpaceLeft && self.stream.pointee.avail_in == 0 && loaded == input.count {
                return .success(())
            }
        }
    }

    /// Resets zlib's stream after a `BFINAL` block while keeping the LZ77 window, which later blocks of
    /// the message (and, with context takeover, later messages) may refer to.
    private func restartKeepingWindow() -> PerMessageDeflateError? {
        let windowSize = 1 << max(self.windowBits, 9)
        var window = [UInt8](repeating: 0, count: windowSize)
        var length: uInt = 0
        let status = window.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return Z_STREAM_ERROR }
            var status = inflateGetDictionary(self.stream, base, &length)
            guard status == Z_OK else { return status }
            // inflateReset keeps next_in/avail_in: the rest of the input is still there.
            status = inflateReset(self.stream)
            guard status == Z_OK, length > 0 else { return status }
            return inflateSetDictionary(self.stream, base, length)
        }
        return status == Z_OK ? nil : .zlibFailure(status)
    }
}
