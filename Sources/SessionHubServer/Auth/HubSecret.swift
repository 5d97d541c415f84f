import Foundation

/// Where the hub's token secret comes from: `SESSIONHUB_SECRET`, else a file, else a generated
/// development secret written to that file (mode 0600) so `sessionhub token` and the server agree.
///
/// The HMAC key is the UTF-8 bytes of the secret as text, at least 16 of them: the variable's
/// value exactly as set; the file's text with leading and trailing whitespace and newlines
/// trimmed (a file that is not UTF-8 is refused). A generated secret is 32 random bytes in
/// base64url (43 characters) followed by a newline. See docs/OPERATIONS.md section 4.3.
public enum HubSecret {
    /// Errors loading the secret.
    public enum LoadError: Error, CustomStringConvertible {
        /// The secret is shorter than 16 bytes.
        case tooShort(String)
        /// The file could not be read or written.
        case io(String)

        /// A readable message.
        public var description: String {
            switch self {
            case .tooShort(let source): return "the secret from \(source) is shorter than 16 bytes"
            case .io(let message): return message
            }
        }
    }

    /// Loads (or creates) the secret. `environment` defaults to the process environment.
    public static func load(file: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [UInt8] {
        if let value = environment["SESSIONHUB_SECRET"], !value.isEmpty {
            guard value.utf8.count >= 16 else { throw LoadError.tooShort("SESSIONHUB_SECRET") }
            return Array(value.utf8)
        }
        let manager = FileManager.default
        if manager.fileExists(atPath: file) {
            guard let data = manager.contents(atPath: file) else { throw LoadError.io("cannot read secret file \(file)") }
            // The key is the file's text, not its raw bytes: refuse what is not UTF-8 rather than
            // replace bytes (a token minter using the raw bytes would never match).
            guard let contents = String(data: data, encoding: .utf8) else {
                throw LoadError.io("secret file \(file) is not UTF-8 text (write the secret as text, e.g. openssl rand -base64 32)")
            }
            let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.count >= 16 else { throw LoadError.tooShort(file) }
            return Array(text.utf8)
        }
        let generated = Base64URL.encode(HMACSHA256.randomBytes(32))
        let directory = (file as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            guard manager.createFile(atPath: file, contents: Data((generated + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
                throw LoadError.io("cannot write secret file \(file)")
            }
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError.io("cannot create \(directory): \(error)")
        }
        return Array(generated.utf8)
    }
}
