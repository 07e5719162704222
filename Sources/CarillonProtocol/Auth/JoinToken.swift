import CarillonCrypto

/// Join tokens: the credential an attendee presents as a WebSocket sub-protocol to join a meeting.
///
/// A token is 96 lowercase hex characters: 32 of a random 16-byte nonce, then 64 of
/// HMAC-SHA256(secret, "carillon-join-token-v1\n" + meetingId + "\n" + attendeeId + "\n" + nonceHex).
/// Letters and digits only, so it is a valid sub-protocol string and satisfies both Chime API models; bound to
/// one meeting and one attendee; verifiable without storing it, with a secret that survives restarts.
/// Stateless and safe to call from any thread.
public enum JoinToken {
    /// Suffix that marks a content-share connection: token `<JoinToken>#content`, attendee `<attendeeId>#content`.
    public static let contentSuffix = "#content"

    /// Number of characters in a token.
    public static let length = nonceHexLength + macHexLength

    static let nonceByteCount = 16
    static let nonceHexLength = nonceByteCount * 2
    static let macHexLength = HMACSHA256.byteCount * 2
    static let domain = "carillon-join-token-v1"

    /// Issues a fresh token for `attendeeId` in `meetingId`.
    ///
    /// - Precondition: neither id contains a newline (ids are server-generated UUIDs; a newline would make the
    ///   signed message ambiguous).
    public static func issue(meetingId: String, attendeeId: String, secret: JoinTokenSecret) -> String {
        issue(meetingId: meetingId, attendeeId: attendeeId, secret: secret,
              nonce: SecureRandom.bytes(count: nonceByteCount))
    }

    /// Issues a token with a given nonce (tests use it for fixed outputs).
    static func issue(meetingId: String, attendeeId: String, secret: JoinTokenSecret, nonce: [UInt8]) -> String {
        precondition(!containsNewline(meetingId) && !containsNewline(attendeeId), "ids must not contain newlines")
        precondition(nonce.count == nonceByteCount, "join token nonce must be \(nonceByteCount) bytes")
        let nonceHex = Hex.encode(nonce)
        return nonceHex + mac(meetingId: meetingId, attendeeId: attendeeId, nonceHex: nonceHex, secret: secret)
    }

    /// True when `token` was issued with `secret` for exactly this meeting and attendee.
    ///
    /// Rejects anything that is not 96 lowercase hex characters before doing any cryptography, and compares the
    /// MAC in constant time. For a content-share connection, split off `contentSuffix` first
    /// (`splitContentSuffix`) and verify the base token against the base attendee id.
    public static func verify(_ token: String, meetingId: String, attendeeId: String, secret: JoinTokenSecret) -> Bool {
        guard token.utf8.count == length, Hex.isLowercaseHex(token) else { return false }
        guard !containsNewline(meetingId), !containsNewline(attendeeId) else { return false }
        let utf8 = Array(token.utf8)
        let nonceHex = String(decoding: utf8[..<nonceHexLength], as: UTF8.self)
        let expected = mac(meetingId: meetingId, attendeeId: attendeeId, nonceHex: nonceHex, secret: secret)
        return ConstantTime.equals(utf8[nonceHexLength...], Array(expected.utf8))
    }

    /// Splits `<token>#content` into the base token and `true`; any other string is returned whole with `false`.
    public static func splitContentSuffix(_ token: String) -> (baseToken: String, isContent: Bool) {
        guard token.hasSuffix(contentSuffix) else { return (token, false) }
        return (String(token.dropLast(contentSuffix.count)), true)
    }

    // Byte-level check: "\r\n" is one Character in Swift, so a Character search would miss it.
    private static func containsNewline(_ id: String) -> Bool {
        id.utf8.contains(0x0A)
    }

    private static func mac(meetingId: String, attendeeId: String, nonceHex: String, secret: JoinTokenSecret) -> String {
        let message = domain + "\n" + meetingId + "\n" + attendeeId + "\n" + nonceHex
        return Hex.encode(HMACSHA256.authenticate(Array(message.utf8), key: secret.bytes))
    }
}
