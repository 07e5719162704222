/// Small lexical pieces shared by the SDP parsers: SDP separates fields with spaces (we also accept tabs).
enum SDPText {
    static func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }

    /// Whitespace-separated fields.
    static func fields(_ text: Substring) -> [Substring] { text.split(whereSeparator: isSpace) }

    /// The text without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// The first field and everything after the whitespace that follows it (trimmed).
    static func firstField(_ text: Substring) -> (head: Substring, rest: Substring) {
        let text = trimmed(text)
        guard let gap = text.firstIndex(where: isSpace) else { return (text, text[text.endIndex...]) }
        return (text[..<gap], trimmed(text[gap...]))
    }

    /// Whether the text is one or more ASCII digits.
    static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The decimal value of ASCII digits, or nil when they are not digits or do not fit `T`.
    static func decimal<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring, as type: T.Type = T.self) -> T? {
        guard isDigits(text) else { return nil }
        return T(text, radix: 10)
    }

    /// A line cut short enough to quote in an error.
    static func quoted(_ text: Substring) -> String { text.count > 200 ? String(text.prefix(200)) + "…" : String(text) }
}

/// One non-blank line of SDP text with its 1-based physical line number, for error reporting.
struct SDPSourceLine {
    let number: Int
    let text: Substring

    func malformed(_ reason: String) -> SDPError {
        .malformedLine(number: number, line: SDPText.quoted(text), reason: reason)
    }

    /// A payload type token: digits within 0-127.
    func payloadType(_ token: Substring) throws(SDPError) -> UInt8 {
        guard SDPText.isDigits(token) else { throw malformed("payload type \"\(SDPText.quoted(token))\" is not a number") }
        guard let value = SDPText.decimal(token, as: UInt8.self), value <= 127 else {
            throw .payloadTypeOutOfRange(number: number, value: SDPText.quoted(token))
        }
        return value
    }
}
