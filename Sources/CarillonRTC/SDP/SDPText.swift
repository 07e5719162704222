/// Small lexical pieces shared by the SDP parsers: SDP separates fields with spaces (we also accept tabs).
///
/// SDP is a byte-oriented grammar, so these work on Unicode scalars, never on `Character`s: a grapheme cluster can
/// swallow a separator (a `:`, `;` or space followed by a combining mark), and a value whose first scalar is a
/// combining mark would then cluster with whatever separator the serializer writes before it, so a second parse would
/// cut the text differently from the first.
enum SDPText {
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// Whitespace-separated fields.
    static func fields(_ text: Substring) -> [Substring] {
        text.unicodeScalars.split(whereSeparator: isSpace).map(Substring.init)
    }

    /// The pieces between occurrences of `separator`.
    static func split(_ text: Substring, at separator: Unicode.Scalar, omittingEmpty: Bool) -> [Substring] {
        text.unicodeScalars.split(separator: separator, omittingEmptySubsequences: omittingEmpty).map(Substring.init)
    }

    /// The text before and after the first `separator`, nil when there is none.
    static func cut(_ text: Substring, at separator: Unicode.Scalar) -> (before: Substring, after: Substring)? {
        let scalars = text.unicodeScalars
        guard let index = scalars.firstIndex(of: separator) else { return nil }
        return (Substring(scalars[..<index]), Substring(scalars[scalars.index(after: index)...]))
    }

    /// The text after `prefix` when it starts with it (compared scalar by scalar), else nil.
    static func removingPrefix(_ prefix: String, from text: Substring) -> Substring? {
        guard text.unicodeScalars.starts(with: prefix.unicodeScalars) else { return nil }
        return Substring(text.unicodeScalars.dropFirst(prefix.unicodeScalars.count))
    }

    /// The text without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return Substring(scalars[first...last])
    }

    /// The first field and everything after the whitespace that follows it (trimmed).
    static func firstField(_ text: Substring) -> (head: Substring, rest: Substring) {
        let text = trimmed(text)
        let scalars = text.unicodeScalars
        guard let gap = scalars.firstIndex(where: isSpace) else { return (text, text[text.endIndex...]) }
        return (Substring(scalars[..<gap]), trimmed(Substring(scalars[gap...])))
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
