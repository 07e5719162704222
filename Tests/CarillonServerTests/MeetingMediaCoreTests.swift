import CarillonCodecs
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// An uplink as a client sends it: 20 ms Opus frames of a tone (or silence), with or without the level extension.
private struct Uplink {
    static let levelExtensionId: UInt8 = 1
    let ssrc: UInt32
    var tone: ToneGenerator?
    var sendsLevel: Bool
    let encoder: OpusEncoder
    var sequenceNumber: UInt16 = 65_530
    var timestamp: UInt32 = 1_000

    init(ssrc: UInt32, frequency: Double?, amplitude: Double = 0.3, sendsLevel: Bool = true) throws {
        self.ssrc = ssrc
        tone = frequency.map { ToneGenerator(frequency: $0, amplitude: amplitude) }
        self.sendsLevel = sendsLevel
        encoder = try OpusEncoder(format: .mono48k, application: .voip, dtx: false)
    }

    mutating func next() throws -> RTPPacket {
        let frame = tone?.next() ?? .silence(format: .mono48k, milliseconds: 20)
        let level = AudioLevel.rfc6464Level(frame)
        let payload = try encoder.encode(frame)
        defer {
            sequenceNumber &+= 1
            timestamp &+= 960
        }
        let extensions: [(id: UInt8, value: [UInt8])] = sendsLevel
            ? [(Self.levelExtensionId, RTPHeaderExtensionValue.audioLevelValue(voice: level <= 50, level: level))] : []
        return RTPPacket(payloadType: 111, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                         extensions: extensions, payload: payload[...])
    }
}

/// A meeting's media core with sessions added and connected, run in virtual time.
private struct CoreMeeting {
    let core = MeetingMediaCore(now: .uptimeNanoseconds(1_000_000_000))
    var now = NIODeadline.uptimeNanoseconds(2_000_000_000)
    var outputs: [(at: NIODeadline, output: MeetingMediaOutput)] = []

    func add(_ connection: UInt64, attendee: String, levelExtension: Bool = true) {
        core.add(SignalingConnectionID(connection), attendeeId: attendee, ssrc: UInt32(connection) * 1_000,
                 opusPayloadType: 111, audioLevelExtensionId: levelExtension ? Uplink.levelExtensionId : nil, now: now)
        core.connected(SignalingConnectionID(connection), muted: false, now: now)
    }

    /// Runs the core until `end`, feeding each uplink a packet every 20 ms (lost when `drop` says so).
    mutating func run(until end: NIODeadline, uplinks: inout [UInt64: Uplink],
                      drop: (UInt64, UInt16) -> Bool = { _, _ in false }) throws {
        var nextPacket = now
        while now < end {
            if now >= nextPacket {
                for connection in uplinks.keys.sorted() {
                    let packet = try uplinks[connection]!.next()
                    guard !drop(connection, packet.sequenceNumber) else { continue }
                    core.receive(packet, from: SignalingConnectionID(connection), now: now)
                }
                nextPacket = nextPacket + .milliseconds(20)
            }
            if let deadline = core.nextDeadline, deadline <= now {
                outputs += core.tick(now: now).map { (now, $0) }
            }
            now = min(nextPacket, core.nextDeadline ?? nextPacket, end)
            if now == end { break }
        }
    }

    func metadata() -> [(at: NIODeadline, states: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)])] {
        outputs.compactMap { if case .audioMetadata(let states) = $0.output { ($0.at, states) } else { nil } }
    }

    func packets(to connection: UInt64) -> [[UInt8]] {
        outputs.compactMap { if case .rtp(let to, let bytes) = $0.output, to.rawValue == connection { bytes } else { nil } }
    }

    func reports(to connection: UInt64) -> [(at: NIODeadline, bytes: [UInt8])] {
        outputs.compactMap { if case .rtcp(let to, let bytes) = $0.output, to.rawValue == connection { ($0.at, bytes) } else { nil } }
    }
}

@Suite struct MeetingMediaCoreTests {
    @Test func anUplinkWithoutTheLevelExtensionIsMixedAndReportedSpeaking() throws {
        var meeting = CoreMeeting()
        meeting.add(1, attendee: "talker", levelExtension: false)
        meeting.add(2, attendee: "listener")
        var uplinks: [UInt64: Uplink] = [1: try Uplink(ssrc: 11, frequency: 500, sendsLevel: false),
                                         2: try Uplink(ssrc: 22, frequency: nil)]
        try meeting.run(until: meeting.now + .seconds(1), uplinks: &uplinks)

        // Reported: the talker loud (a 0.3 sine is about -13 dBov), the listener silent.
        let last = try #require(meeting.metadata().last?.states)
        let talker = try #require(last.first { $0.attendeeId == "talker" })
        let listener = try #require(last.first { $0.attendeeId == "listener" })
        #expect(try #require(talker.volume) < 20)
        #expect(listener.volume == 127)
        // Mixed: the listener hears the tone.
        let decoder = try OpusDecoder(format: .mono48k)
        var heard: [Int16] = []
        for bytes in meeting.packets(to: 2).suffix(25) {
            heard += try decoder.decode(Array(try RTPPacket(parsing: bytes).payload)).samples
        }
        #expect(FrequencyAnalysis.goertzelPower(samples: heard[...], sampleRate: 48_000, frequency: 500) > 0.02)
        #expect(meeting.core.mixer?.currentSpeakers == [AudioMixer.ParticipantID(1)])
    }

    @Test func volumesAreEachAttendeesLevelAndAreReportedOnlyWhenTheyChange() throws {
        var meeting = CoreMeeting()
        let amplitudes = [0.5, 0.2, 0.05]
        var uplinks: [UInt64: Uplink] = [:]
        for (index, amplitude) in amplitudes.enumerated() {
            let connection = UInt64(index + 1)
            meeting.add(connection, attendee: "talker-\(connection)")
            uplinks[connection] = try Uplink(ssrc: UInt32(connection), frequency: 300 + 200 * Double(index), amplitude: amplitude)
        }
        meeting.add(4, attendee: "listener")
        uplinks[4] = try Uplink(ssrc: 4, frequency: nil)
        try meeting.run(until: meeting.now + .seconds(1), uplinks: &uplinks)
        let reports = meeting.metadata()
        let last = try #require(reports.last?.states)
        #expect(last.map(\.attendeeId) == ["listener", "talker-1", "talker-2", "talker-3"], "everyone, every time")
        for (index, amplitude) in amplitudes.enumerated() {
            // A sine of peak A has an RMS of A/√2: its RFC 6464 level, exactly as the packets carried it.
            let expected = AudioLevel.rfc6464Level(dBov: FrequencyAnalysis.decibels(amplitude * amplitude / 2))
            let reported = try #require(last.first { $0.attendeeId == "talker-\(index + 1)" }?.volume)
            #expect(abs(Int(reported) - Int(expected)) <= 1, "talker-\(index + 1): \(reported), expected \(expected)")
        }
        #expect(last.first { $0.attendeeId == "listener" }?.volume == 127)
        // Steady tones: after the first report nothing changes, so nothing more is sent.
        #expect(reports.count == 1, "reports at \(reports.map(\.at))")

        // One talker falls silent: the next report says so (and lists everyone again).
        uplinks[2]?.tone = nil
        try meeting.run(until: meeting.now + .milliseconds(400), uplinks: &uplinks)
        let after = meeting.metadata().dropFirst()
        let changed = try #require(after.first?.states)
        #expect(changed.count == 4)
        #expect(try #require(changed.first { $0.attendeeId == "talker-2" }?.volume) > 60)
    }

    @Test func aMutedAttendeeIsReportedSilentWhateverItSends() throws {
        var meeting = CoreMeeting()
        meeting.add(1, attendee: "muted")
        meeting.add(2, attendee: "listener")
        meeting.core.setMuted(true, attendeeId: "muted")
        var uplinks: [UInt64: Uplink] = [1: try Uplink(ssrc: 11, frequency: 500), 2: try Uplink(ssrc: 22, frequency: nil)]
        try meeting.run(until: meeting.now + .seconds(1), uplinks: &uplinks)
        let states = meeting.metadata().flatMap(\.states).filter { $0.attendeeId == "muted" }
        #expect(!states.isEmpty)
        #expect(states.allSatisfy { $0.volume == 127 && $0.signalStrength == 2 })
        #expect(meeting.core.mixer?.currentSpeakers == [])
    }

    @Test func everySessionGetsOneMixedPacketPerTickAndReportsOnTheirGrids() throws {
        var meeting = CoreMeeting()
        let start = meeting.now
        meeting.add(1, attendee: "a")
        meeting.add(2, attendee: "b")
        var uplinks: [UInt64: Uplink] = [1: try Uplink(ssrc: 11, frequency: 500), 2: try Uplink(ssrc: 22, frequency: 700)]
        // Every tenth packet of a's uplink is lost.
        try meeting.run(until: start + .milliseconds(2_010), uplinks: &uplinks, drop: { connection, sequence in
            connection == 1 && sequence % 10 == 0
        })
        // The mixer ticks at once and every 20 ms: 101 ticks in [0, 2000] ms.
        #expect(meeting.packets(to: 1).count == 101)
        #expect(meeting.packets(to: 2).count == 101)
        // AUDIO_METADATA only at the 200 ms grid, and only when something changed.
        let metadataTimes = meeting.metadata().map { ($0.at - start).nanoseconds / 1_000_000 }
        #expect(!metadataTimes.isEmpty)
        #expect(metadataTimes.allSatisfy { $0 > 0 && $0 % 200 == 0 })
        // One receiver report a second to each session, about its own uplink.
        let reportsToA = meeting.reports(to: 1)
        #expect(reportsToA.map { ($0.at - start).nanoseconds / 1_000_000 } == [1_000, 2_000])
        let packets = try RTCPPacket.parseCompound(try #require(reportsToA.last?.bytes))
        guard case .receiverReport(let sender, let blocks)? = packets.first else {
            Issue.record("expected a receiver report, got \(packets)")
            return
        }
        #expect(sender == 1_000, "the server's SSRC towards this session")
        let block = try #require(blocks.first)
        #expect(block.ssrc == 11)
        // 5 of the 50 packets of the second second were lost: 10 % is 25.6/256.
        #expect((24...27).contains(block.fractionLost), "fraction lost \(block.fractionLost)")
        let toB = try RTCPPacket.parseCompound(try #require(meeting.reports(to: 2).last?.bytes))
        if case .receiverReport(_, let blocks)? = toB.first {
            #expect(blocks.first?.ssrc == 22 && blocks.first?.fractionLost == 0)
        } else {
            Issue.record("expected a receiver report to b")
        }
    }

    @Test func theLastSessionLeavingReleasesTheMixAndStartsTheIdleClock() throws {
        var meeting = CoreMeeting()
        #expect(meeting.core.audioIdleSince == .uptimeNanoseconds(1_000_000_000), "idle from the start")
        #expect(meeting.core.nextDeadline == nil)
        meeting.add(1, attendee: "a")
        meeting.add(2, attendee: "b")
        #expect(meeting.core.audioIdleSince == nil)
        #expect(meeting.core.mixer != nil)
        var uplinks: [UInt64: Uplink] = [1: try Uplink(ssrc: 11, frequency: 500), 2: try Uplink(ssrc: 22, frequency: 700)]
        try meeting.run(until: meeting.now + .milliseconds(500), uplinks: &uplinks)

        meeting.core.remove(SignalingConnectionID(1), now: meeting.now)
        #expect(meeting.core.audioIdleSince == nil, "b is still connected")
        #expect(meeting.core.mixer?.participantCount == 1)
        let leftAt = meeting.now + .milliseconds(3)
        meeting.core.remove(SignalingConnectionID(2), now: leftAt)
        #expect(meeting.core.audioIdleSince == leftAt)
        #expect(meeting.core.mixer == nil, "nobody connected: no codecs held")
        #expect(meeting.core.nextDeadline == nil)
        #expect(meeting.core.sessions.isEmpty)
        #expect(meeting.core.tick(now: leftAt + .seconds(1)).isEmpty)

        // A session that negotiated but never connected does not count as an audio connection.
        meeting.core.add(SignalingConnectionID(3), attendeeId: "c", ssrc: 3, opusPayloadType: 111,
                         audioLevelExtensionId: nil, now: leftAt)
        #expect(meeting.core.audioIdleSince == leftAt)
        #expect(meeting.core.nextDeadline == nil)
    }

    @Test func packetsOfUnconnectedOrUnknownSessionsAreIgnored() throws {
        let core = MeetingMediaCore(now: .uptimeNanoseconds(0))
        core.add(SignalingConnectionID(1), attendeeId: "a", ssrc: 1, opusPayloadType: 111, audioLevelExtensionId: 1,
                 now: .uptimeNanoseconds(0))
        var uplink = try Uplink(ssrc: 5, frequency: 500)
        core.receive(try uplink.next(), from: SignalingConnectionID(1), now: .uptimeNanoseconds(1))
        core.receive(try uplink.next(), from: SignalingConnectionID(9), now: .uptimeNanoseconds(2))
        #expect(core.sessions[SignalingConnectionID(1)]?.uplink?.ssrc == nil)
        #expect(core.tick(now: .uptimeNanoseconds(3)).isEmpty)
    }
}
