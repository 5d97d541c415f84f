import Foundation
import FuzzSupport
import HubProtocol
import SessionHubClient

/// ``ClientMessageDecoder`` on arbitrary bytes.
///
/// Input: one message. (Its size is bounded before the decoder, by the `/ws` endpoint's frame
/// limit, so the decoder has no size check of its own.)
///
/// Properties: nothing traps; an accepted `id` (the echoed `ref`) is at most 64 bytes; an
/// accepted message encoded again by ``ClientMessageEncoder`` decodes to the same message; the
/// `String` entry point agrees with the `Data` one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let message = Data(FuzzDriver.bytes(data, size))
    let decoder = ClientMessageDecoder()
    let result = decoder.decode(message)
    switch result {
    case .failure(let error):
        fuzzCheck(error.ref.map { $0.utf8.count <= 64 } ?? true, "ref over 64 bytes")
    case .success(let decoded):
        fuzzCheck(decoded.id.map { $0.utf8.count <= 64 } ?? true, "id over 64 bytes")
        let text = ClientMessageEncoder.encode(decoded)
        switch ClientMessageDecoder().decode(text) {
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
