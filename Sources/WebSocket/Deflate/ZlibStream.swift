import CZlib

/// The allocation and release of a zlib stream, shared by ``MessageDeflater`` and
/// ``MessageInflater``: each owns one `z_stream` on the heap for its whole life.
enum ZlibStream {
    /// A new, zeroed `z_stream` that `initialize` (`deflateInit2` or `inflateInit2`) set up.
    /// - Throws: ``PerMessageDeflateError/zlibFailure(_:)`` with zlib's code when `initialize`
    ///   does not return `Z_OK`; the stream is freed first.
    static func make(_ initialize: (UnsafeMutablePointer<z_stream>) -> Int32)
        throws(PerMessageDeflateError) -> UnsafeMutablePointer<z_stream> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = initialize(stream)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlibFailure(status)
        }
        return stream
    }

    /// Ends the stream with `end` (`deflateEnd` or `inflateEnd`) and frees it.
    static func free(_ stream: UnsafeMutablePointer<z_stream>, end: (UnsafeMutablePointer<z_stream>) -> Int32) {
        _ = end(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}
