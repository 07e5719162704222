import CarillonCrypto

/// Invite tokens: the credential in a guest's join link (`/join/<invite>`), which admits any number of guests to one
/// meeting until it expires.
///
/// A token is `<meetingId>.<expiresAt>.<mac>`: the meeting's id (a lowercase UUID), the expiry in seconds since the
/// Unix epoch, and 32 lowercase hex characters, the first 16 bytes of
/// HMAC-SHA256(secret, "carillon-invite-v1\n" + meetingId + "\n" + expiresAt). Only `[0-9a-f.-]`, so it sits in a URL
/// path unescaped; bound to one meeting and one expiry; verifiable without storing it, with the server's join-token
/// secret (a different domain string, so an invite's MAC is never a join token's). It carries no attendee: redeeming
/// it creates one. Stateless and safe to call from any thread.
public enum InviteToken {
    /// What an invite token admits to.
    public struct Claims: Sendable, Equatable {
        /// The meeting it admits to.
        public let meetingId: String
        /// When it stops admitting, in seconds since the Unix epoch.
        public let expiresAt: Int64

        /// Creates claims.
        public init(meetingId: String, expiresAt: Int64) {
            self.meetingId = meetingId
            self.expiresAt = expiresAt
        }
    }

    /// Why a token does not admit anyone.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not of the token's shape (including a meeting id that is not a lowercase UUID).
        case malformed
        /// The shape is right but the MAC is not this server's: altered, or issued by another server.
        case forged
        /// Genuine but past its expiry (seconds since the Unix epoch).
        case expired(meetingId: String, expiresAt: Int64)

        /// Human-readable reason, safe to show a guest.
        public var description: String {
            switch self {
            case .malformed: "this is not an invite link"
            case .forged: "this invite link is not valid for this server"
            case .expired: "this invite link has expired"
            }
        }
    }

    /// The longest lifetime an invite can be given: 30 days.
    public static let maximumLifetimeSeconds: Int64 = 30 * 24 * 3600

    static let domain = "carillon-invite-v1"
    static let macHexLength = 32
    static let uuidLength = 36
    /// Expiries up to 9999999999 s (year 2286): a bound on the digits read before any cryptography.
    static let maximumExpiryDigits = 10

    /// Issues a token admitting guests to `meetingId` until `expiresAt` (seconds since the Unix epoch).
    ///
    /// - Precondition: `meetingId` is a lowercase UUID (the server's meeting ids are), `expiresAt` is positive and has
    ///   at most 10 digits.
    public static func issue(meetingId: String, expiresAt: Int64, secret: JoinTokenSecret) -> String {
        precondition(isMeetingId(meetingId), "invite tokens are issued for lowercase UUID meeting ids")
        precondition(expiresAt > 0 && String(expiresAt).utf8.count <= maximumExpiryDigits, "expiry out of range")
        return meetingId + "." + String(expiresAt) + "." + mac(meetingId: meetingId, expiresAt: expiresAt, secret: secret)
    }

    /// The claims of `token` when it was issued with `secret` and has not expired at `now` (seconds since the Unix
    /// epoch); otherwise why not. The shape is checked before any cryptography and the MAC compared in constant time;
    /// an expired token is reported as expired only when its MAC is genuine (so expiry cannot be probed by forging).
    public static func verify(_ token: String, secret: JoinTokenSecret, now: Int64) -> Result<Claims, Refusal> {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.malformed) }
        let meetingId = String(decoding: parts[0], as: UTF8.self)
        let expiryText = parts[1]
        let macText = parts[2]
        guard isMeetingId(meetingId),
              (1...maximumExpiryDigits).contains(expiryText.count),
              expiryText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              expiryText.first != UInt8(ascii: "0"),
              let expiresAt = Int64(String(decoding: expiryText, as: UTF8.self)),
              macText.count == macHexLength, Hex.isLowercaseHex(String(decoding: macText, as: UTF8.self)) else {
            return .failure(.malformed)
        }
        let expected = mac(meetingId: meetingId, expiresAt: expiresAt, secret: secret)
        guard ConstantTime.equals(Array(macText), Array(expected.utf8)) else { return .failure(.forged) }
        guard now < expiresAt else { return .failure(.expired(meetingId: meetingId, expiresAt: expiresAt)) }
        return .success(Claims(meetingId: meetingId, expiresAt: expiresAt))
    }

    /// True when invites can be issued for `meetingId`: a lowercase UUID in its 8-4-4-4-12 form.
    public static func isMeetingId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == uuidLength else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }

    private static func mac(meetingId: String, expiresAt: Int64, secret: JoinTokenSecret) -> String {
        let message = domain + "\n" + meetingId + "\n" + String(expiresAt)
        let digest = HMACSHA256.authenticate(Array(message.utf8), key: secret.bytes)
        return Hex.encode(Array(digest.prefix(macHexLength / 2)))
    }
}
