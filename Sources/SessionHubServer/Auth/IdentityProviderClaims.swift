/// The claims of an identity provider's token that the hub reads; any other claim is ignored.
///
/// NumericDates (`exp`, `iat`, `nbf`) may have a fraction (RFC 7519 §2), which is dropped; `aud`
/// is a string or an array of strings (RFC 7519 §4.1.3).
struct IdentityProviderClaims: Decodable {
    var sub: String
    var name: String?
    var preferredUsername: String?
    var iss: String?
    var aud: [String]?
    var exp: Int
    var iat: Int
    var nbf: Int?

    private enum Keys: String, CodingKey {
        case sub, name, iss, aud, exp, iat, nbf
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        sub = try container.decode(String.self, forKey: .sub)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        preferredUsername = try container.decodeIfPresent(String.self, forKey: .preferredUsername)
        iss = try container.decodeIfPresent(String.self, forKey: .iss)
        if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
            aud = [one]
        } else {
            aud = try container.decodeIfPresent([String].self, forKey: .aud)
        }
        exp = try Self.numericDate(container, .exp)
        iat = try Self.numericDate(container, .iat)
        nbf = container.contains(.nbf) ? try Self.numericDate(container, .nbf) : nil
    }

    private static func numericDate(_ container: KeyedDecodingContainer<Keys>, _ key: Keys) throws -> Int {
        let value = try container.decode(Double.self, forKey: key)
        guard value.isFinite, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a NumericDate")
        }
        return Int(value.rounded(.down))
    }

    /// The display name: `name`, else `preferred_username`, else `sub` (the first that is not
    /// empty), cut to 128 UTF-8 bytes at a character boundary.
    var displayName: String {
        let chosen = [name, preferredUsername].compactMap { $0 }.first { !$0.isEmpty } ?? sub
        guard chosen.utf8.count > TokenClaims.maxNameBytes else { return chosen }
        var cut = ""
        for character in chosen {
            guard cut.utf8.count + character.utf8.count <= TokenClaims.maxNameBytes else { break }
            cut.append(character)
        }
        return cut
    }
}
