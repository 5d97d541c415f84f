/// Parses `Sec-WebSocket-Extensions` header values (RFC 6455 §9.1):
///
/// ```
/// extension-list  = 1#extension
/// extension       = extension-token *( ";" extension-param )
/// extension-param = token [ "=" ( token / quoted-string ) ]
/// ```
///
/// with optional whitespace around `,`, `;` and `=`, and empty list elements ignored (RFC 9110 §5.6.1).
/// A quoted-string value is returned unescaped; callers validate values.
enum ExtensionHeaderParser {
    /// One extension of a header value, with its parameters in order (duplicates kept).
    struct Element: Hashable {
        /// The extension token, as written.
        var name: String
        /// The parameters, in order.
        var parameters: [Parameter]
    }

    /// One `name[=value]` parameter; `value` is nil when there is no `=`.
    struct Parameter: Hashable {
        /// The parameter token, as written.
        var name: String
        /// The value, unquoted; nil when the parameter has no value.
        var value: String?
    }

    /// The header value does not follow the grammar.
    struct SyntaxError: Error, Hashable {
        /// What was wrong, for diagnostics.
        var reason: String
    }

    /// Parses one header value into its extensions.
    static func parse(_ headerValue: String) throws(SyntaxError) -> [Element] {
        var cursor = Cursor(bytes: Array(headerValue.utf8))
        var elements: [Element] = []
        while true {
            cursor.skipWhitespace()
            guard let byte = cursor.peek() else { break }
            if byte == UInt8(ascii: ",") {
                // An empty list element.
                cursor.advance()
                continue
            }
            guard let name = cursor.token() else {
                throw SyntaxError(reason: "expected an extension token")
            }
            var element = Element(name: name, parameters: [])
            cursor.skipWhitespace()
            while cursor.peek() == UInt8(ascii: ";") {
                cursor.advance()
                cursor.skipWhitespace()
                element.parameters.append(try Self.parameter(&cursor))
                cursor.skipWhitespace()
            }
            elements.append(element)
            switch cursor.peek() {
            case nil:
                break
            case UInt8(ascii: ","):
                cursor.advance()
            default:
                throw SyntaxError(reason: "expected ',' or ';' after an extension")
            }
        }
        return elements
    }

    /// Parses every header value, in order, into one list.
    static func parse(_ headerValues: [String]) throws(SyntaxError) -> [Element] {
        var elements: [Element] = []
        for value in headerValues {
            elements += try Self.parse(value)
        }
        return elements
    }

    private static func parameter(_ cursor: inout Cursor) throws(SyntaxError) -> Parameter {
        guard let name = cursor.token() else {
            throw SyntaxError(reason: "expected a parameter token")
        }
        cursor.skipWhitespace()
        guard cursor.peek() == UInt8(ascii: "=") else {
            return Parameter(name: name, value: nil)
        }
        cursor.advance()
        cursor.skipWhitespace()
        if cursor.peek() == UInt8(ascii: "\"") {
            // RFC 6455 §9.1 wants the unescaped value to be a token; the parameters that use values
            // check them, so another extension's odd value does not hide the offers next to it.
            return Parameter(name: name, value: try cursor.quotedString())
        }
        guard let value = cursor.token() else {
            throw SyntaxError(reason: "expected a parameter value")
        }
        return Parameter(name: name, value: value)
    }

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A read position in the UTF-8 bytes of one header value.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        func peek() -> UInt8? {
            self.index < self.bytes.count ? self.bytes[self.index] : nil
        }

        mutating func advance() {
            self.index += 1
        }

        mutating func skipWhitespace() {
            while let byte = self.peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                self.index += 1
            }
        }

        /// Reads a token, or returns nil (consuming nothing) when none starts here.
        mutating func token() -> String? {
            let start = self.index
            while let byte = self.peek(), ExtensionHeaderParser.isTokenCharacter(byte) {
                self.index += 1
            }
            guard self.index > start else { return nil }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        /// Reads a quoted-string starting at `"` and returns its unescaped content.
        mutating func quotedString() throws(SyntaxError) -> String {
            self.advance()  // the opening quote
            var content: [UInt8] = []
            while let byte = self.peek() {
                self.advance()
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: content, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = self.peek(), Self.isQuotedTextOrEscapable(escaped) else {
                        throw SyntaxError(reason: "invalid quoted-pair")
                    }
                    self.advance()
                    content.append(escaped)
                default:
                    guard Self.isQuotedTextOrEscapable(byte) else {
                        throw SyntaxError(reason: "invalid character in a quoted-string")
                    }
                    content.append(byte)
                }
            }
            throw SyntaxError(reason: "unterminated quoted-string")
        }

        /// HTAB, SP, visible ASCII and obs-text (RFC 9110 §5.6.4); the caller handles `"` and `\`.
        private static func isQuotedTextOrEscapable(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
        }
    }
}
