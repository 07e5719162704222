import CarillonCrypto
import Testing
@testable import CarillonProtocol

@Suite("Join tokens")
struct JoinTokenTests {
    let meeting = "11111111-2222-3333-4444-555555555555"
    let attendee = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    let secret = try! JoinTokenSecret(hex: String(repeating: "42", count: 32))

    @Test("issued tokens verify for their meeting and attendee, and are 96 lowercase hex characters")
    func issueAndVerify() {
        let token = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        #expect(token.count == 96)
        #expect(token.allSatisfy { $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) })
        #expect(JoinToken.verify(token, meetingId: meeting, attendeeId: attendee, secret: secret))
    }

    @Test("the token layout is nonce then HMAC-SHA256 of the documented message")
    func layout() {
        let nonce: [UInt8] = Array(0..<16)
        let token = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret, nonce: nonce)
        let nonceHex = "000102030405060708090a0b0c0d0e0f"
        let message = "carillon-join-token-v1\n\(meeting)\n\(attendee)\n\(nonceHex)"
        #expect(token == nonceHex + Hex.encode(HMACSHA256.authenticate(Array(message.utf8), key: secret.bytes)))
    }

    @Test("two tokens for the same attendee differ (random nonce)")
    func unguessable() {
        let first = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        let second = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        #expect(first != second)
        #expect(first.prefix(32) != second.prefix(32))
    }

    @Test("a token is bound to its meeting, its attendee and the secret")
    func binding() throws {
        let token = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        #expect(!JoinToken.verify(token, meetingId: "11111111-2222-3333-4444-555555555556", attendeeId: attendee,
                                  secret: secret))
        #expect(!JoinToken.verify(token, meetingId: meeting, attendeeId: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeef",
                                  secret: secret))
        #expect(!JoinToken.verify(token, meetingId: meeting, attendeeId: attendee + "#content", secret: secret))
        // Moving the separator between the ids must not keep the MAC valid.
        #expect(!JoinToken.verify(token, meetingId: meeting + "\n" + attendee, attendeeId: "", secret: secret))
        #expect(!JoinToken.verify(token, meetingId: meeting, attendeeId: attendee, secret: JoinTokenSecret.generate()))
    }

    @Test("altering any single character of a token makes it invalid")
    func altered() {
        let token = Array(JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret))
        for position in token.indices {
            var altered = token
            altered[position] = token[position] == "0" ? "1" : "0"
            #expect(!JoinToken.verify(String(altered), meetingId: meeting, attendeeId: attendee, secret: secret),
                    "altered position \(position) still verified")
        }
    }

    @Test("forged tokens are rejected")
    func forged() {
        let valid = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        let forgeries = [
            String(repeating: "0", count: 96),
            String(valid.prefix(32)) + String(repeating: "f", count: 64),
            // A fresh nonce with the MAC of another nonce.
            String(repeating: "a", count: 32) + String(valid.suffix(64)),
            // The MAC computed with the wrong (all-zero) key.
            JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: try! JoinTokenSecret(bytes: [UInt8](repeating: 0, count: 32))),
        ]
        for forgery in forgeries {
            #expect(!JoinToken.verify(forgery, meetingId: meeting, attendeeId: attendee, secret: secret))
        }
    }

    @Test("wrong length or alphabet is rejected before any cryptography")
    func alphabet() {
        let valid = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        let candidates = [
            "",
            String(valid.dropLast()),
            valid + "0",
            valid.uppercased(),
            String(valid.dropLast()) + "g",
            String(valid.dropLast()) + "=",
            String(valid.dropLast()) + "/",
            String(valid.dropLast()) + "é",
            valid + "#content",
        ]
        for candidate in candidates {
            #expect(!JoinToken.verify(candidate, meetingId: meeting, attendeeId: attendee, secret: secret),
                    "accepted \(candidate)")
        }
    }

    @Test("content-share suffix splits off cleanly")
    func contentSuffix() {
        let token = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: secret)
        let content = JoinToken.splitContentSuffix(token + JoinToken.contentSuffix)
        #expect(content.baseToken == token)
        #expect(content.isContent)
        #expect(JoinToken.verify(content.baseToken, meetingId: meeting, attendeeId: attendee, secret: secret))
        let plain = JoinToken.splitContentSuffix(token)
        #expect(plain.baseToken == token)
        #expect(!plain.isContent)
        #expect(JoinToken.contentSuffix == "#content")
        #expect(JoinToken.splitContentSuffix("abc#contents") == ("abc#contents", false))
    }

    @Test("secrets round-trip through hex and survive a 'restart'")
    func secretStorage() throws {
        let generated = JoinTokenSecret.generate()
        #expect(generated.bytes.count == 32)
        #expect(generated.hex.count == 64)
        let stored = generated.hex + "\n"
        let reloaded = try JoinTokenSecret(hex: stored)
        #expect(reloaded == generated)
        let token = JoinToken.issue(meetingId: meeting, attendeeId: attendee, secret: generated)
        #expect(JoinToken.verify(token, meetingId: meeting, attendeeId: attendee, secret: reloaded))
        #expect(JoinTokenSecret.generate() != generated)
        #expect(!"\(generated)".contains(generated.hex))
    }

    @Test("bad stored secrets are typed errors")
    func secretDecodingErrors() {
        #expect(throws: JoinTokenSecret.DecodingError.notHex) { try JoinTokenSecret(hex: "xyz") }
        #expect(throws: JoinTokenSecret.DecodingError.wrongLength(16)) {
            try JoinTokenSecret(hex: String(repeating: "ab", count: 16))
        }
        #expect(throws: JoinTokenSecret.DecodingError.wrongLength(0)) { try JoinTokenSecret(bytes: []) }
    }
}
