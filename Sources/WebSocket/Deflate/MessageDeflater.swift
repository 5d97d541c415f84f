import CZlib
import NIOCore

/// Compresses whole messages for one direction of a permessage-deflate connection (RFC 7692 §7.2.1).
///
/// Each message is raw DEFLATE ended by `Z_SYNC_FLUSH`, with the trailing `00 00 ff ff` removed. Without
/// context takeover the stream is reset after every message, so each output depends on that message
/// alone and can be sent to any number of peers that negotiated a window of at least ``windowBits``.
///
/// A class because it owns a zlib stream, which `deinit` frees. Not `Sendable`: use it from one thread
/// (or one event loop) at a time. Memory: see `docs/DEFLATE.md` (about 142 KiB at 15 window bits and
/// memory level 4, allocated here in `init`).
///
/// Window bits 8 (which a peer may legally ask for) are served with zlib's Huffman-only strategy over
/// a 9-bit window: the output holds literals only, never a back-reference, so a 256-byte window
/// decompresses it. It compresses less (entropy coding only) but stays correct.
public final class MessageDeflater {
    /// The negotiated window bits this deflater honours, `8...15`.
    public let windowBits: Int
    /// Whether the stream is reset after every message.
    public let noContextTakeover: Bool

    private let stream: UnsafeMutablePointer<z_stream>

    /// Creates a deflater and its zlib stream.
    ///
    /// - Parameters:
    ///   - windowBits: the window the peer allowed, `8...15` (``PerMessageDeflateParameters/serverMaxWindowBits``
    ///     on a server, ``PerMessageDeflateParameters/clientMaxWindowBits`` on a client).
    ///   - noContextTakeover: reset after each message (the negotiated `*_no_context_takeover` of this side).
    ///   - level: zlib level `0...9` (or -1 for zlib's default).
    ///   - memoryLevel: zlib `memLevel`, `1...9`.
    /// - Throws: ``PerMessageDeflateError/zlibFailure(_:)`` with `Z_STREAM_ERROR` (-2) for values out of
    ///   range, or zlib's code when it cannot allocate its state.
    public init(
        windowBits: Int,
        noContextTakeover: Bool,
        level: Int32,
        memoryLevel: Int32
    ) throws(PerMessageDeflateError) {
        guard (8...15).contains(windowBits) else {
            throw .zlibFailure(Z_STREAM_ERROR)
        }
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        // Initialize zlib before `self` is complete: a throwing init must not reach `deinit`.
        let zlibWindowBits = Int32(max(windowBits, 9))
        let strategy = windowBits == 8 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY
        self.stream = try ZlibStream.make {
            sessionhub_deflateInit2($0, level, Z_DEFLATED, -zlibWindowBits, memoryLevel, strategy)
        }
    }

    deinit {
        ZlibStream.free(stream) { deflateEnd($0) }
    }

    /// Appends the compressed form of `message` to `output`: raw DEFLATE, flushed with `Z_SYNC_FLUSH`,
    /// the trailing `00 00 ff ff` removed (RFC 7692 §7.2.1). An empty message becomes the single byte
    /// `00` (RFC 7692 §7.2.3.6). With no context takeover the stream is reset afterwards.
    public func compress(_ message: ByteBuffer, into output: inout ByteBuffer) {
        guard message.readableBytes > 0 else {
            // An empty stored block's header; the receiver's appended 00 00 ff ff completes it. Valid
            // in any state, since every earlier message ended byte-aligned on a sync flush.
            output.writeInteger(UInt8(0))
            return
        }
        let start = output.writerIndex
        message.withUnsafeReadableBytes { input in
            guard let base = input.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
            var consumed = 0
            // One call suffices when the bound holds; a sync flush adds at most a 5-byte empty block.
            var reserve = Int(deflateBound(self.stream, uLong(input.count))) + 8
            var finished = false
            while !finished {
                if self.stream.pointee.avail_in == 0 && consumed < input.count {
                    // zlib counts input in 32 bits: feed at most 1 GiB per call.
                    let chunk = min(input.count - consumed, 1 << 30)
                    self.stream.pointee.next_in = UnsafeMutablePointer(mutating: base + consumed)
                    self.stream.pointee.avail_in = uInt(chunk)
                    consumed += chunk
                }
                let flush = consumed == input.count ? Z_SYNC_FLUSH : Z_NO_FLUSH
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: reserve) { buffer in
                    let capacity = min(buffer.count, 1 << 30)
                    self.stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    self.stream.pointee.avail_out = uInt(capacity)
                    let status = deflate(self.stream, flush)
                    precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate failed: \(status)")
                    // zlib completed the flush when it left output space unused.
                    finished = flush == Z_SYNC_FLUSH && self.stream.pointee.avail_out > 0
                    return capacity - Int(self.stream.pointee.avail_out)
                }
                reserve = 4096
            }
            self.stream.pointee.next_in = nil
            self.stream.pointee.next_out = nil
        }
        // Remove the 00 00 ff ff that ends every sync flush.
        let tailIndex = output.writerIndex - 4
        precondition(
            tailIndex >= start && output.getInteger(at: tailIndex, as: UInt32.self) == 0x0000_FFFF,
            "a sync flush must end with 00 00 ff ff"
        )
        output.moveWriterIndex(to: tailIndex)
        if self.noContextTakeover {
            deflateReset(self.stream)
        }
    }

    /// Discards any context: the next message is compressed as if it were the first.
    public func reset() {
        deflateReset(self.stream)
    }
}
