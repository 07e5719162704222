import CarillonCrypto
import Testing
@testable import CarillonProtocol

@Suite("Invite tokens")
struct InviteTokenTests {
    let meeting = "11111111-2222-3333-4444-555555555555"
    let secret = try! JoinTokenSecret(hex: String(repeating: "42", count: 32))
    let expiry: Int64 = 1_800_000_000

    @Test("an issued token is the meeting, the expiry and a truncated HMAC of the documented message")
    func layout() {
        let token = InviteToken.issue(meetingId: meeting, expiresAt: expiry, secret: secret)
        let message = "carillon-invite-v1\n\(meeting)\n1800000000"
        let mac = Hex.encode(HMACSHA256.authenticate(Array(message.utf8), key: secret.bytes).prefix(16))
        #expect(token == "\(meeting).1800000000.\(mac)")
        #expect(token.utf8.allSatisfy { ("0"..."9").contains(Character(UnicodeScalar($0))) || ("a"..."f").contains(Character(UnicodeScalar($0))) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
    }

    @Test("a token admits to its meeting until the second it expires")
    func expires() {
        let token = InviteToken.issue(meetingId: meeting, expiresAt: expiry, secret: secret)
        #expect(InviteToken.verify(token, secret: secret, now: expiry - 1) == .success(.init(meetingId: meeting, expiresAt: expiry)))
        #expect(InviteToken.verify(token, secret: secret, now: expiry) == .failure(.expired(meetingId: meeting, expiresAt: expiry)))
    }

    @Test("a token is bound to its meeting, its expiry and the secret")
    func binding() throws {
        let token = InviteToken.issue(meetingId: meeting, expiresAt: expiry, secret: secret)
        let mac = token.split(separator: ".")[2]
        let otherMeeting = "11111111-2222-3333-4444-555555555556.1800000000.\(mac)"
        let longer = "\(meeting).1900000000.\(mac)"
        #expect(InviteToken.verify(otherMeeting, secret: secret, now: 0) == .failure(.forged))
        #expect(InviteToken.verify(longer, secret: secret, now: 0) == .failure(.forged))
        let other = try JoinTokenSecret(hex: String(repeating: "43", count: 32))
        #expect(InviteToken.verify(token, secret: other, now: 0) == .failure(.forged))
        // Expired and forged: reported as forged, so expiry cannot be probed without the secret.
        #expect(InviteToken.verify(longer, secret: secret, now: 2_000_000_000) == .failure(.forged))
    }

    @Test("anything not of the token's shape is malformed before any cryptography")
    func malformed() {
        let token = InviteToken.issue(meetingId: meeting, expiresAt: expiry, secret: secret)
        let mac = String(token.split(separator: ".")[2])
        let cases = [
            "", ".", "..", "\(meeting).1800000000", "\(meeting).1800000000.\(mac).x",
            "ABCDEF11-2222-3333-4444-555555555555.1800000000.\(mac)",  // meeting ids are lowercase
            "11111111222233334444555555555555.1800000000.\(mac)",       // no hyphens
            "\(meeting).01800000000.\(mac)", "\(meeting).-1.\(mac)", "\(meeting).+18.\(mac)",
            "\(meeting).18000000000.\(mac)",                            // 11 digits
            "\(meeting).1800000000.\(mac.uppercased())", "\(meeting).1800000000.\(mac.dropLast())",
            "\(meeting).1800000000.\(mac)0", "\(meeting)..\(mac)", "\(meeting).1800000000.\(mac)%2f",
        ]
        for text in cases {
            #expect(InviteToken.verify(text, secret: secret, now: 0) == .failure(.malformed), "\(text)")
        }
    }
}
