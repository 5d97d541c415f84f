import Foundation

/// JSON decoding of token parts (one place that turns bytes into a `Decodable`).
enum JSONDecoding {
    /// Decodes `bytes` as `type`.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
