/// What this endpoint is willing to negotiate for permessage-deflate (RFC 7692).
///
/// The same value configures a server (see ``PerMessageDeflateNegotiation/negotiate(offers:configuration:)``)
/// and a client (see ``PerMessageDeflateNegotiation/clientOffer(configuration:)``). Window bits outside
/// `9...15`, levels outside `0...9` and memory levels outside `1...9` are clamped when used.
///
/// The defaults favour CPU and memory over compression ratio: a server answers with
/// `server_no_context_takeover` and `client_no_context_takeover`, so neither direction keeps an LZ77
/// window between messages (zlib streams can be freed or shared between messages), and compresses with
/// level 1 and memory level 4. `docs/DEFLATE.md` gives the measurements behind these numbers.
public struct PerMessageDeflateConfiguration: Sendable, Hashable {
    /// Whether permessage-deflate is offered (client) or accepted (server) at all. Default `true`.
    public var isEnabled: Bool

    /// Server: always answer with `server_no_context_takeover` (also when the client did not ask), so the
    /// server's compressor starts every message from an empty window and one compressed broadcast can be
    /// sent to every member (compress once). Client: ask the server for it in the offer. Default `true`.
    ///
    /// A client's offer that contains `server_no_context_takeover` is always honoured, whatever this says.
    public var serverNoContextTakeover: Bool

    /// Server: answer with `client_no_context_takeover` (RFC 7692 §7.1.1.2 lets a server do so even when
    /// the client did not offer it), so the server's decompressor holds no window between messages.
    /// Client: offer it, and never take over context when compressing. Default `true`.
    public var clientNoContextTakeover: Bool

    /// The largest LZ77 window (as a power of two) the server's compressor may use, `9...15`. Default 15.
    ///
    /// Server: the window it compresses with is the smaller of this and the client's
    /// `server_max_window_bits`. Client: when below 15, offered as `server_max_window_bits`.
    public var maxServerWindowBits: Int

    /// The largest LZ77 window the client's compressor may use, `9...15`. Default 15.
    ///
    /// Server: a hard cap on the window the server must keep to decompress. When below 15 an offer that
    /// lacks `client_max_window_bits` (so the client cannot be limited) is declined. Client: offered as
    /// `client_max_window_bits=N` (or bare `client_max_window_bits` at 15) and never exceeded.
    public var maxClientWindowBits: Int

    /// The zlib compression level, `0...9`. Default 1 (zlib's fastest matcher): on chat-sized JSON
    /// without context takeover it compresses within 0.5% of level 6 at a lower CPU cost.
    public var compressionLevel: Int32

    /// The zlib `memLevel`, `1...9`. Default 4: about 14 KiB of hash table and buffers per compressor instead of
    /// 134 KiB at zlib's default of 8, for a ratio within 1% of it on chat-sized messages.
    public var memoryLevel: Int32

    /// Messages smaller than this many bytes are sent uncompressed (RSV1 clear): below it deflate saves
    /// almost nothing or even grows the payload. Default 64.
    public var minimumCompressedSize: Int

    /// Creates a configuration; every argument has the documented default.
    public init(
        isEnabled: Bool = true,
        serverNoContextTakeover: Bool = true,
        clientNoContextTakeover: Bool = true,
        maxServerWindowBits: Int = 15,
        maxClientWindowBits: Int = 15,
        compressionLevel: Int32 = 1,
        memoryLevel: Int32 = 4,
        minimumCompressedSize: Int = 64
    ) {
        self.isEnabled = isEnabled
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.maxServerWindowBits = maxServerWindowBits
        self.maxClientWindowBits = maxClientWindowBits
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
        self.minimumCompressedSize = minimumCompressedSize
    }

    /// The documented defaults: enabled, both no-context-takeover flags, windows of 15 bits, level 1,
    /// memory level 4, messages under 64 bytes left uncompressed.
    public static let `default` = Self()

    /// ``maxServerWindowBits`` clamped to `9...15`.
    var effectiveMaxServerWindowBits: Int { Self.clampWindowBits(self.maxServerWindowBits) }

    /// ``maxClientWindowBits`` clamped to `9...15`.
    var effectiveMaxClientWindowBits: Int { Self.clampWindowBits(self.maxClientWindowBits) }

    /// ``compressionLevel`` clamped to zlib's `0...9`.
    var effectiveCompressionLevel: Int32 { min(max(self.compressionLevel, 0), 9) }

    /// ``memoryLevel`` clamped to zlib's `1...9`.
    var effectiveMemoryLevel: Int32 { min(max(self.memoryLevel, 1), 9) }

    private static func clampWindowBits(_ bits: Int) -> Int {
        min(max(bits, 9), 15)
    }
}
