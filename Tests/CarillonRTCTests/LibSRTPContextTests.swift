import CarillonRTC
import Testing

@Suite struct LibSRTPContextTests {
    func rtp(sequence: UInt16, timestamp: UInt32 = 960, ssrc: UInt32 = 0x1122_3344, payload: [UInt8] = Array(0..<160)) -> [UInt8] {
        [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
         UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)] + payload
    }

    func pair(_ profile: SRTPProfile) throws -> (sender: LibSRTPContext, receiver: LibSRTPContext) {
        let key = (0..<profile.keyLength).map { UInt8($0 &* 7 &+ 3) }
        let salt = (0..<profile.saltLength).map { UInt8($0 &* 13 &+ 1) }
        return (try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .outbound),
                try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .inbound))
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTripsAcrossTheSequenceWrap(profile: SRTPProfile) throws {
        let (sender, receiver) = try pair(profile)
        var sequence: UInt16 = 65_530
        for index in 0..<12 {
            let original = rtp(sequence: sequence, timestamp: UInt32(index * 960))
            var packet = original
            try sender.protectRTP(&packet)
            #expect(packet.count == original.count + 16 - (profile == .aes128CMHMACSHA1_80 ? 6 : 0))
            #expect(packet[12...] != original[12...])
            try receiver.unprotectRTP(&packet)
            #expect(packet == original)
            sequence &+= 1
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func replaysAndTamperingAreRejected(profile: SRTPProfile) throws {
        let (sender, receiver) = try pair(profile)
        var packet = rtp(sequence: 100)
        try sender.protectRTP(&packet)
        var tampered = packet
        tampered[20] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTP(&tampered) }
        var copy = packet
        try receiver.unprotectRTP(&copy)
        var again = packet
        #expect(throws: SRTPError.replay) { try receiver.unprotectRTP(&again) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTrips(profile: SRTPProfile) throws {
        let (sender, receiver) = try pair(profile)
        // A receiver report with no report blocks: V=2, PT=201, length 1, sender SSRC.
        let original: [UInt8] = [0x80, 201, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44]
        var packet = original
        try sender.protectRTCP(&packet)
        #expect(packet.count > original.count)
        try receiver.unprotectRTCP(&packet)
        #expect(packet == original)
    }

    @Test func keyLengthsAreChecked() {
        #expect(throws: SRTPError.badKeyLength(expected: 16, got: 15)) {
            try LibSRTPContext(profile: .aeadAES128GCM, masterKey: [UInt8](repeating: 1, count: 15),
                               masterSalt: [UInt8](repeating: 2, count: 12), direction: .outbound)
        }
        #expect(throws: SRTPError.badKeyLength(expected: 14, got: 12)) {
            try LibSRTPContext(profile: .aes128CMHMACSHA1_80, masterKey: [UInt8](repeating: 1, count: 16),
                               masterSalt: [UInt8](repeating: 2, count: 12), direction: .outbound)
        }
    }

    @Test func wrongKeysFailAuthentication() throws {
        let sender = try LibSRTPContext(profile: .aeadAES128GCM, masterKey: [UInt8](repeating: 1, count: 16),
                                        masterSalt: [UInt8](repeating: 2, count: 12), direction: .outbound)
        let stranger = try LibSRTPContext(profile: .aeadAES128GCM, masterKey: [UInt8](repeating: 9, count: 16),
                                          masterSalt: [UInt8](repeating: 2, count: 12), direction: .inbound)
        var packet = rtp(sequence: 1)
        try sender.protectRTP(&packet)
        #expect(throws: SRTPError.authenticationFailed) { try stranger.unprotectRTP(&packet) }
        var tiny: [UInt8] = [0x80, 0x00]
        #expect(throws: SRTPError.malformedPacket) { try stranger.unprotectRTP(&tiny) }
    }
}
