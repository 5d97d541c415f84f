import CZlib

/// One record of a ``LogJournal`` segment: a session's header, one of its entries, the drop of a
/// session that ended, or the start of a segment.
///
/// On disk (little-endian): `length` (UInt32, the bytes after the checksum), `crc` (UInt32,
/// CRC-32 of those bytes), then `kind` (UInt8: 1 header, 2 entry, 3 drop, 4 start), the session
/// id (UInt16 length + UTF-8; empty for a start), and by kind: a header's `startedAt` (Int64) and
/// body; an entry's `seq` and `timestamp` (Int64 each), its event kind (UInt8 length + UTF-8) and
/// body (the broadcast's wire text, ``JournalBody``); nothing for a drop; for a start, the
/// previous segment's number and size (Int64 each), so that a segment written after one whose
/// tail an OS crash lost is not read past that loss. A record whose checksum or shape is wrong
/// ends what a scan reads (a write torn by an OS crash).
package enum LogRecord: Equatable, Sendable {
    case header(sessionId: String, startedAt: Int64, body: [UInt8])
    case entry(sessionId: String, seq: Int, timestamp: Int64, kind: String, body: [UInt8])
    case drop(sessionId: String)
    /// The first record of every segment: where the one before it ended.
    case start(previousSegment: Int, previousSize: Int)

    /// The largest record a segment accepts (length field), far above any entry the hub writes
    /// (a message is at most 16 KiB; a header a few hundred bytes).
    package static let maxLength = 16 << 20

    /// The session the record belongs to.
    package var sessionId: String {
        switch self {
        case .header(let sessionId, _, _), .entry(let sessionId, _, _, _, _), .drop(let sessionId): sessionId
        case .start: ""
        }
    }

    /// Appends the record's bytes (length, checksum, payload) to `buffer`.
    /// - Throws: ``StorageError`` when the record is over ``maxLength`` or its event kind over 255
    ///   bytes (`buffer` is then left as it was).
    package func encode(into buffer: inout [UInt8]) throws {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 8))  // length and CRC, put below
        switch self {
        case .header(let sessionId, let startedAt, let body):
            buffer.append(1)
            Self.appendString16(sessionId, to: &buffer)
            Self.append(UInt64(bitPattern: startedAt), to: &buffer)
            buffer.append(contentsOf: body)
        case .entry(let sessionId, let seq, let timestamp, let kind, let body):
            buffer.append(2)
            Self.appendString16(sessionId, to: &buffer)
            Self.append(UInt64(bitPattern: Int64(seq)), to: &buffer)
            Self.append(UInt64(bitPattern: timestamp), to: &buffer)
            let kindCount = kind.utf8.count
            guard kindCount <= 255 else {
                buffer.removeSubrange(start...)
                throw StorageError("journal: event kind over 255 bytes")
            }
            buffer.append(UInt8(kindCount))
            buffer.append(contentsOf: kind.utf8)
            buffer.append(contentsOf: body)
        case .drop(let sessionId):
            buffer.append(3)
            Self.appendString16(sessionId, to: &buffer)
        case .start(let previousSegment, let previousSize):
            buffer.append(4)
            Self.appendString16("", to: &buffer)
            Self.append(UInt64(bitPattern: Int64(previousSegment)), to: &buffer)
            Self.append(UInt64(bitPattern: Int64(previousSize)), to: &buffer)
        }
        let length = buffer.count - start - 8
        guard length <= Self.maxLength else {
            buffer.removeSubrange(start...)
            throw StorageError("journal: a record of \(length) bytes is over the limit (\(Self.maxLength))")
        }
        let crc = buffer.withUnsafeBufferPointer { Self.crc32($0[(start + 8)...]) }
        Self.put(UInt32(length), at: start, in: &buffer)
        Self.put(crc, at: start + 4, in: &buffer)
    }

    /// Reads the record at `offset` of `bytes`; returns it and the offset past it, or nil when
    /// the bytes there are not a whole, intact record (the end of what was written).
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (record: LogRecord, next: Int)? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        let length = Int(readUInt32(bytes, offset))
        let crc = readUInt32(bytes, offset + 4)
        let start = offset + 8
        guard length > 0, length <= maxLength, bytes.count - start >= length else { return nil }
        let payload = bytes[start..<(start + length)]
        guard crc32(payload) == crc else { return nil }
        var reader = Reader(bytes: bytes, position: start, end: start + length)
        guard let kind = reader.byte(), let sessionId = reader.string16() else { return nil }
        let record: LogRecord
        switch kind {
        case 1:
            guard let startedAt = reader.int64() else { return nil }
            record = .header(sessionId: sessionId, startedAt: startedAt, body: reader.rest())
        case 2:
            guard let seq = reader.int64(), let timestamp = reader.int64(), let kindLength = reader.byte(),
                  let eventKind = reader.string(count: Int(kindLength)), let intSeq = Int(exactly: seq) else { return nil }
            record = .entry(sessionId: sessionId, seq: intSeq, timestamp: timestamp, kind: eventKind, body: reader.rest())
        case 3:
            guard reader.atEnd else { return nil }
            record = .drop(sessionId: sessionId)
        case 4:
            guard let previous = reader.int64(), let size = reader.int64(), reader.atEnd,
                  let previousSegment = Int(exactly: previous), let previousSize = Int(exactly: size) else { return nil }
            record = .start(previousSegment: previousSegment, previousSize: previousSize)
        default:
            return nil
        }
        return (record, start + length)
    }

    // MARK: Bytes

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        var atEnd: Bool { position == end }

        mutating func byte() -> UInt8? {
            guard position < end else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func int64() -> Int64? {
            guard end - position >= 8 else { return nil }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
            position += 8
            return Int64(bitPattern: value)
        }

        mutating func string16() -> String? {
            guard end - position >= 2 else { return nil }
            let count = Int(bytes[position]) | Int(bytes[position + 1]) << 8
            position += 2
            return string(count: count)
        }

        mutating func string(count: Int) -> String? {
            guard count >= 0, end - position >= count else { return nil }
            defer { position += count }
            return String(validating: bytes[position..<(position + count)], as: UTF8.self)
        }

        mutating func rest() -> [UInt8] {
            defer { position = end }
            return Array(bytes[position..<end])
        }
    }

    private static func appendString16(_ string: String, to buffer: inout [UInt8]) {
        let count = min(string.utf8.count, Int(UInt16.max))  // session ids are 32 hex digits
        buffer.append(UInt8(count & 0xff))
        buffer.append(UInt8(count >> 8))
        buffer.append(contentsOf: string.utf8.prefix(count))
    }

    private static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        for index in 0..<8 { buffer.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    private static func put(_ value: UInt32, at offset: Int, in buffer: inout [UInt8]) {
        for index in 0..<4 { buffer[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
    }

    private static func readUInt32(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << (8 * UInt32(index)) }
        return value
    }

    /// zlib's CRC-32 of `bytes`.
    private static func crc32(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32 {
        let base = bytes.base.baseAddress.map { $0 + bytes.startIndex }
        return UInt32(CZlib.crc32(0, base, UInt32(bytes.count)))
    }
}
