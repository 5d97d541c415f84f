/// The zlib streams of one connection, created on first use so an idle connection holds no
/// compression memory (see docs/DEFLATE.md for the bytes each stream costs).
final class CompressionCodecs {
    private let role: WebSocketRole
    private let parameters: PerMessageDeflateParameters
    private let settings: PerMessageDeflateConfiguration
    private var inflaterStorage: MessageInflater?
    private var deflaterStorage: MessageDeflater?

    init(role: WebSocketRole, parameters: PerMessageDeflateParameters, settings: PerMessageDeflateConfiguration) {
        self.role = role
        self.parameters = parameters
        self.settings = settings
    }

    /// The inflater for what the peer sends (the peer's window and context takeover).
    func inflater() throws -> MessageInflater {
        if let inflaterStorage { return inflaterStorage }
        let peerIsClient = role == .server
        let created = try MessageInflater(
            windowBits: peerIsClient ? parameters.clientMaxWindowBits : parameters.serverMaxWindowBits,
            noContextTakeover: peerIsClient ? parameters.clientNoContextTakeover : parameters.serverNoContextTakeover
        )
        inflaterStorage = created
        return created
    }

    /// The deflater for what we send.
    func deflater() throws -> MessageDeflater {
        if let deflaterStorage { return deflaterStorage }
        let weAreServer = role == .server
        let created = try MessageDeflater(
            windowBits: weAreServer ? parameters.serverMaxWindowBits : parameters.clientMaxWindowBits,
            noContextTakeover: weAreServer ? parameters.serverNoContextTakeover : parameters.clientNoContextTakeover,
            level: settings.compressionLevel,
            memoryLevel: settings.memoryLevel
        )
        deflaterStorage = created
        return created
    }
}
