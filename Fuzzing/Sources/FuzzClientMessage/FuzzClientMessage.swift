import Foundation
import FuzzSupport
import HubProtocol

/// ``ClientMessageDecoder`` on arbitrary bytes.
///
/// Input: byte 0 = the limit (one of 16 KiB, the default, or 64 bytes); the rest = one message.
///
/// Properties: nothing traps; a message over the limit is refused with `message_too_large` and
/// nothing over the limit is accepted; an accepted `id` (the echoed `ref`) is at most 64 bytes; an
/// accepted message encoded again by ``ClientMessageEncoder`` decodes to the same message; the
/// `String` entry point agrees with the `Data` one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(FuzzDriver.bytes(data, size))
    let limit = reader.byte() & 1 == 0 ? 16 * 1024 : 64
    let message = Data(reader.rest())
    let decoder = ClientMessageDecoder(maxMessageBytes: limit)
    let result = decoder.decode(message)
    switch result {
    case .failure(let error):
        if message.count > limit {
            fuzzCheck(error.code == .messageTooLarge, "over the limit but \(error.code)")
        }
        fuzzCheck(error.ref.map { $0.utf8.count <= 64 } ?? true, "ref over 64 bytes")
    case .success(let decoded):
        fuzzCheck(message.count <= limit, "accepted \(message.count) bytes over limit \(limit)")
        fuzzCheck(decoded.id.map { $0.utf8.count <= 64 } ?? true, "id over 64 bytes")
        let text = ClientMessageEncoder.encode(decoded)
        switch ClientMessageDecoder(maxMessageBytes: 1 << 20).decode(text) {
        case .success(let again):
            let (before, after) = (normalized(.success(decoded)), normalized(.success(again)))
            fuzzCheck(before == after, "round trip changed \(before) into \(after) via \(text)")
        case .failure(let error):
            fuzzCheck(false, "re-encoded message \(text) refused: \(error)")
        }
    }
    if let text = String(validating: message, as: UTF8.self) {
        fuzzCheck(normalized(decoder.decode(text)) == normalized(result), "String and Data decoding differ")
    }
    return 0
}

/// `result` with an `updateProfile` object re-serialized with sorted keys: the decoder copies the
/// object through `JSONSerialization`, whose key order follows a `Dictionary`'s and so may differ
/// between two decodings of the same text.
private func normalized(_ result: Result<ClientMessage, ProtocolError>) -> Result<ClientMessage, ProtocolError> {
    guard case .success(var message) = result, case .updateProfile(let profile) = message.request else { return result }
    if let object = try? JSONSerialization.jsonObject(with: profile),
       let sorted = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
        message.request = .updateProfile(profile: sorted)
    }
    return .success(message)
}

@main
enum FuzzClientMessageMain {
    static func main() {
        FuzzDriver.run(fuzzClientMessage)
    }
}
