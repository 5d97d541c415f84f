/// Errors raised by permessage-deflate (RFC 7692): negotiation, compression and decompression.
///
/// A ``MessageInflater`` or ``MessageDeflater`` that threw is in an unspecified state: close the
/// connection (1009 for ``messageTooLarge``, 1007 for ``corruptData``, 1011 for ``zlibFailure(_:)``)
/// or call its `reset()` before using it again.
public enum PerMessageDeflateError: Error, Sendable, Hashable {
    /// The decompressed message would exceed the caller's limit (a decompression bomb or simply too
    /// large). Maps to close code 1009 (Message Too Big).
    case messageTooLarge
    /// The compressed payload is not valid DEFLATE data, or does not end on a block boundary once
    /// the `00 00 ff ff` tail is appended. Maps to close code 1007 (Invalid Frame Payload Data).
    case corruptData
    /// zlib reported an unexpected status (for example `Z_MEM_ERROR` = -4, or `Z_STREAM_ERROR` = -2
    /// for parameters zlib refuses). The associated value is zlib's return code.
    case zlibFailure(Int32)
    /// The server's `Sec-WebSocket-Extensions` response violates RFC 6455 §9.1 / RFC 7692 §7.1, or
    /// does not match what the client offered. The client must fail the WebSocket connection.
    case invalidNegotiation(String)
}
