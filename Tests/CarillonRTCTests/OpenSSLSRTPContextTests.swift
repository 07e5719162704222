import CarillonRTC
import Testing

/// ``OpenSSLSRTPContext`` against ``LibSRTPContext`` as the oracle: the same keys and packets must give the same
/// bytes, each must open what the other protected, and both must accept and reject the same deliveries.
@Suite struct OpenSSLSRTPContextTests {
    /// The four contexts of one direction: each implementation's sender and receiver, all on one master key.
    struct Contexts {
        let librarySender: LibSRTPContext
        let libraryReceiver: LibSRTPContext
        let sender: OpenSSLSRTPContext
        let receiver: OpenSSLSRTPContext

        init(_ profile: SRTPProfile, seed: UInt8 = 3) throws {
            let key = (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
            let salt = (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
            librarySender = try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .outbound)
            libraryReceiver = try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .inbound)
            sender = try OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt)
            receiver = try OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt)
        }

        /// Protects `packet` with both senders, expects the same bytes, and returns them.
        func protectBoth(_ packet: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
            var library = packet, own = packet
            try librarySender.protectRTP(&library)
            try sender.protectRTP(&own)
            #expect(own == library, "protected bytes differ", sourceLocation: sourceLocation)
            return own
        }

        /// What each receiver makes of `datagram`: the RTP packet or the error.
        func unprotectBoth(_ datagram: [UInt8]) -> (library: Result<[UInt8], SRTPError>, own: Result<[UInt8], SRTPError>) {
            var library = datagram, own = datagram
            let libraryResult: Result<[UInt8], SRTPError> = Result { () throws(SRTPError) in
                try libraryReceiver.unprotectRTP(&library)
                return library
            }
            let ownResult: Result<[UInt8], SRTPError> = Result { () throws(SRTPError) in
                try receiver.unprotectRTP(&own)
                return own
            }
            return (libraryResult, ownResult)
        }
    }

    enum Extension: CaseIterable { case none, oneByte, twoByte }

    /// An RTP packet with `csrcs` CSRCs, an optional RFC 8285 extension block, `payload` bytes and `padding`
    /// bytes of padding (the last holding the count).
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1122_3344, csrcs: Int = 0, extension: Extension = .none,
                    payload: Int = 160, padding: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | (padding > 0 ? 0x20 : 0) | (`extension` == .none ? 0 : 0x10) | UInt8(csrcs),
                              0x80 | 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0x00, 0x01, 0xE2, 0x40]
        bytes += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        for index in 0..<csrcs { bytes += withUnsafeBytes(of: (0xC500_0000 + UInt32(index)).bigEndian, Array.init) }
        switch `extension` {
        case .none: break
        case .oneByte: bytes += [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x85, 0x32, 0x01, 0x02, 0x03, 0x00, 0x00]
        case .twoByte: bytes += [0x10, 0x00, 0x00, 0x01, 0x05, 0x02, 0xAA, 0xBB]
        }
        bytes += (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(sequence)) }
        if padding > 0 { bytes += [UInt8](repeating: 0, count: padding - 1) + [UInt8(padding)] }
        return bytes
    }

    // MARK: SRTP

    @Test(arguments: SRTPProfile.allCases)
    func packetShapesGiveTheSameBytesBothWays(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        var sequence: UInt16 = 1000
        for payload in [0, 1, 15, 16, 17, 160, 1188] {
            for csrcs in [0, 1, 15] {
                for `extension` in Extension.allCases {
                    for padding in [0, 1, 4] {
                        let packet = Self.rtp(sequence: sequence, csrcs: csrcs, extension: `extension`, payload: payload,
                                              padding: padding)
                        let protected = try contexts.protectBoth(packet)
                        #expect(protected.count == packet.count + profile.rtpTrailerLength)
                        // The header (CSRCs and extensions included) is authenticated but stays in the clear.
                        let headerLength = packet.count - payload - padding
                        #expect(protected[..<headerLength] == packet[..<headerLength])
                        let (library, own) = contexts.unprotectBoth(protected)
                        #expect(try library.get() == packet)
                        #expect(try own.get() == packet)
                        sequence &+= 1
                    }
                }
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rolloverCounterFollowsSequenceWraps(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        // Consecutive across the first wrap, then steps of 997 that wrap every 66 packets (ROC up to 5).
        var sequences = (65_530...65_535).map(UInt16.init) + (0...5).map(UInt16.init)
        var next: UInt16 = 5
        for _ in 0..<300 {
            next &+= 997
            sequences.append(next)
        }
        for sequence in sequences {
            let packet = Self.rtp(sequence: sequence, payload: 48)
            let protected = try contexts.protectBoth(packet)
            let (library, own) = contexts.unprotectBoth(protected)
            #expect(try library.get() == packet)
            #expect(try own.get() == packet)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func lateAndReorderedPacketsAcrossTheWrap(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let packets = [UInt16]([65_532, 65_533, 65_534, 65_535, 0, 1, 2]).map { Self.rtp(sequence: $0, payload: 20) }
        var datagrams: [[UInt8]] = []
        for packet in packets { datagrams.append(try contexts.protectBoth(packet)) }
        // 65535 arrives after 0 and 1 (it belongs to the previous rollover counter), 65532 last.
        for position in [1, 2, 4, 5, 3, 6, 0] {
            let (library, own) = contexts.unprotectBoth(datagrams[position])
            #expect(try library.get() == packets[position])
            #expect(try own.get() == packets[position])
        }
    }

    /// A seeded delivery script of reordered, duplicated, very late and far-ahead packets: both receivers must agree
    /// on every one, and the script must hit each case.
    @Test(arguments: SRTPProfile.allCases)
    func replayDecisionsMatchTheOracle(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        var random = SeededRandom(seed: 7)
        var datagrams: [[UInt8]] = []
        var sequence: UInt16 = 65_000
        for _ in 0..<4000 {
            // Mostly consecutive, sometimes a jump (a lost burst); small enough that a packet 1500 datagrams back
            // stays within half the sequence space, where its rollover counter can still be told.
            sequence &+= random.next() % 50 == 0 ? UInt16(random.next() % 300) + 1 : 1
            datagrams.append(try contexts.protectBoth(Self.rtp(sequence: sequence, payload: 24)))
        }
        var accepted = 0, replays = 0
        var head = 0
        for _ in 0..<6000 {
            head = min(datagrams.count - 1, head + Int(random.next() % 3))
            // Deliver near the head, or up to 1500 packets back (some beyond the 1024-packet window).
            let back = random.next() % 4 == 0 ? Int(random.next() % 1500) : Int(random.next() % 4)
            let (library, own) = contexts.unprotectBoth(datagrams[max(0, head - back)])
            #expect(library == own)
            switch own {
            case .success: accepted += 1
            case .failure(.replay): replays += 1
            case .failure(let error): Issue.record("unexpected \(error)")
            }
        }
        #expect(accepted > 2000)
        #expect(replays > 500)
    }

    @Test(arguments: SRTPProfile.allCases)
    func tooOldAndReplayedPacketsAreRejected(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let first = try contexts.protectBoth(Self.rtp(sequence: 10))
        for sequence in UInt16(11)...1100 { _ = try contexts.protectBoth(Self.rtp(sequence: sequence, payload: 4)) }
        let latest = try contexts.protectBoth(Self.rtp(sequence: 1101))
        #expect(try contexts.unprotectBoth(latest).own.get() == Self.rtp(sequence: 1101))
        // 1091 behind the highest: outside the 1024-packet window.
        let (library, own) = contexts.unprotectBoth(first)
        #expect(throws: SRTPError.replay) { try library.get() }
        #expect(throws: SRTPError.replay) { try own.get() }
        var again = latest
        #expect(throws: SRTPError.replay) { try contexts.receiver.unprotectRTP(&again) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperingIsRejectedWithoutMovingTheWindow(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let packet = Self.rtp(sequence: 500, csrcs: 2, extension: .oneByte)
        let protected = try contexts.protectBoth(packet)
        // A bit in the fixed header, a CSRC, the extension, the payload and the tag.
        for position in [1, 13, 30, 40, protected.count - 1] {
            var tampered = protected
            tampered[position] ^= 0x04
            #expect(throws: SRTPError.authenticationFailed) { try contexts.receiver.unprotectRTP(&tampered) }
        }
        var truncatedTag = Array(protected.dropLast())
        #expect(throws: SRTPError.authenticationFailed) { try contexts.receiver.unprotectRTP(&truncatedTag) }
        var intact = protected
        try contexts.receiver.unprotectRTP(&intact)
        #expect(intact == packet)
    }

    @Test(arguments: SRTPProfile.allCases)
    func senderMayRepeatAnIndexButNotGoBeyondTheWindow(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let packet = Self.rtp(sequence: 3000)
        let once = try contexts.protectBoth(packet)
        let twice = try contexts.protectBoth(packet)
        #expect(once == twice)
        _ = try contexts.protectBoth(Self.rtp(sequence: 4100))
        var old = Self.rtp(sequence: 3000)
        #expect(throws: SRTPError.replay) { try contexts.librarySender.protectRTP(&old) }
        #expect(throws: SRTPError.replay) { try contexts.sender.protectRTP(&old) }
        #expect(old == Self.rtp(sequence: 3000))
    }

    @Test(arguments: SRTPProfile.allCases)
    func streamsOfSeveralSSRCsAreIndependent(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        for round in 0..<50 {
            for ssrc: UInt32 in [1, 0xFFFF_FFFF, 0x8000_0000] {
                let packet = Self.rtp(sequence: UInt16(truncatingIfNeeded: 65_520 + round * 3 + Int(ssrc & 3)), ssrc: ssrc)
                let protected = try contexts.protectBoth(packet)
                #expect(try contexts.unprotectBoth(protected).own.get() == packet)
            }
        }
    }

    /// One context both protects and unprotects (its GCM context switches direction per packet).
    @Test(arguments: SRTPProfile.allCases)
    func oneContextProtectsAndUnprotects(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        for sequence in UInt16(0)..<20 {
            let packet = Self.rtp(sequence: sequence)
            var bytes = packet
            try contexts.sender.protectRTP(&bytes)
            try contexts.sender.unprotectRTP(&bytes)
            #expect(bytes == packet)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func malformedPacketsAreRejected(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let tag = profile.rtpTrailerLength
        var cases: [[UInt8]] = [
            [], [0x80], Array(Self.rtp(sequence: 1).prefix(11)),
            // 15 CSRCs announced, 2 present.
            Array(Self.rtp(sequence: 1, csrcs: 15, payload: 0).prefix(20)) + [UInt8](repeating: 0, count: tag),
            // An extension block whose length runs past the end.
            Array(Self.rtp(sequence: 1, extension: .oneByte, payload: 0).prefix(16)) + [0x00, 0x40],
        ]
        cases.append(Array(Self.rtp(sequence: 1, payload: 0).prefix(12 + tag - 1)))
        for var bytes in cases {
            #expect(throws: SRTPError.malformedPacket) { try contexts.receiver.unprotectRTP(&bytes) }
        }
        var short: [UInt8] = Array(Self.rtp(sequence: 1).prefix(11))
        #expect(throws: SRTPError.malformedPacket) { try contexts.sender.protectRTP(&short) }
        var shortRTCP: [UInt8] = [0x80, 201, 0, 1, 0x11, 0x22, 0x33]
        #expect(throws: SRTPError.malformedPacket) { try contexts.sender.protectRTCP(&shortRTCP) }
        var shortSRTCP = [UInt8](repeating: 0x80, count: 8 + profile.rtcpTrailerLength - 1)
        #expect(throws: SRTPError.malformedPacket) { try contexts.receiver.unprotectRTCP(&shortSRTCP) }
    }

    @Test func keyLengthsAreChecked() {
        #expect(throws: SRTPError.badKeyLength(expected: 32, got: 16)) {
            try OpenSSLSRTPContext(profile: .aeadAES256GCM, masterKey: [UInt8](repeating: 1, count: 16),
                                   masterSalt: [UInt8](repeating: 2, count: 12))
        }
        #expect(throws: SRTPError.badKeyLength(expected: 14, got: 12)) {
            try OpenSSLSRTPContext(profile: .aes128CMHMACSHA1_80, masterKey: [UInt8](repeating: 1, count: 16),
                                   masterSalt: [UInt8](repeating: 2, count: 12))
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func anotherKeyFailsAuthentication(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile), stranger = try Contexts(profile, seed: 99)
        var packet = try contexts.protectBoth(Self.rtp(sequence: 1))
        #expect(throws: SRTPError.authenticationFailed) { try stranger.receiver.unprotectRTP(&packet) }
    }

    // MARK: SRTCP

    /// A compound packet: a receiver report with `blocks` report blocks from `ssrc`, then an SDES CNAME.
    static func rtcp(ssrc: UInt32 = 0x5566_7788, blocks: Int, marker: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | UInt8(blocks), 201, 0, UInt8(1 + 6 * blocks)]
        bytes += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        bytes += [UInt8](repeating: marker, count: 24 * blocks)
        bytes += [0x81, 202, 0, 3] + withUnsafeBytes(of: ssrc.bigEndian, Array.init) + [1, 3, 0x61, 0x62, 0x63, 0, 0, 0]
        return bytes
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpGivesTheSameBytesBothWays(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        for round in 0..<40 {
            let packet = Self.rtcp(ssrc: round % 3 == 0 ? 0xAABB_CCDD : 0x5566_7788, blocks: round % 4,
                                   marker: UInt8(round))
            var library = packet, own = packet
            try contexts.librarySender.protectRTCP(&library)
            try contexts.sender.protectRTCP(&own)
            #expect(own == library)
            #expect(own.count == packet.count + profile.rtcpTrailerLength)
            #expect(own[..<8] == packet[..<8])
            var byLibrary = own, byOwn = library
            try contexts.libraryReceiver.unprotectRTCP(&byLibrary)
            try contexts.receiver.unprotectRTCP(&byOwn)
            #expect(byLibrary == packet && byOwn == packet)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpReplayDecisionsMatchTheOracle(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        var random = SeededRandom(seed: 11)
        var datagrams: [[UInt8]] = []
        for round in 0..<600 {
            var bytes = Self.rtcp(blocks: 1, marker: UInt8(truncatingIfNeeded: round))
            try contexts.sender.protectRTCP(&bytes)
            datagrams.append(bytes)
        }
        var accepted = 0, replays = 0, head = 0
        for _ in 0..<1200 {
            head = min(datagrams.count - 1, head + Int(random.next() % 3))
            let back = random.next() % 4 == 0 ? Int(random.next() % 200) : Int(random.next() % 3)
            var library = datagrams[max(0, head - back)], own = library
            let libraryResult = Result { () throws(SRTPError) in
                try contexts.libraryReceiver.unprotectRTCP(&library)
                return library
            }
            let ownResult = Result { () throws(SRTPError) in
                try contexts.receiver.unprotectRTCP(&own)
                return own
            }
            #expect(libraryResult == ownResult)
            switch ownResult {
            case .success:
                accepted += 1
            case .failure(.replay): replays += 1
            case .failure(let error): Issue.record("unexpected \(error)")
            }
        }
        #expect(accepted > 300)
        #expect(replays > 100)
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedRTCPIsRejected(profile: SRTPProfile) throws {
        let contexts = try Contexts(profile)
        let packet = Self.rtcp(blocks: 2, marker: 9)
        var protected = packet
        try contexts.sender.protectRTCP(&protected)
        // The first 8 bytes, the payload, the tag's last byte, and the index's last byte.
        let gcm = profile != .aes128CMHMACSHA1_80
        let tagEnd = gcm ? protected.count - 4 : protected.count
        let indexEnd = gcm ? protected.count : protected.count - 10
        for position in [1, 5, 20, tagEnd - 1, indexEnd - 1] {
            var tampered = protected
            tampered[position] ^= 0x01
            #expect(throws: SRTPError.authenticationFailed) { try contexts.receiver.unprotectRTCP(&tampered) }
        }
        var intact = protected
        try contexts.receiver.unprotectRTCP(&intact)
        #expect(intact == packet)
    }
}
