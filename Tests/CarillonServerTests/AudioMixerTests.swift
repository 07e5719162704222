import CarillonCodecs
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// One attendee as the mixer sees it: a tone (or silence) encoded as a browser would, with the audio level
/// extension, and a decoder for what the mixer sends back.
private final class Attendee {
    static let levelExtensionId: UInt8 = 1
    static let payloadType: UInt8 = 111

    let id: AudioMixer.ParticipantID
    let ssrc: UInt32
    var tone: ToneGenerator?
    /// Whether it sends at all (an attendee that sends nothing still receives).
    var sending = true
    private let encoder: OpusEncoder
    private let decoder: OpusDecoder
    private var sequenceNumber: UInt16 = 65_500
    private var timestamp: UInt32 = 4_294_000_000
    var recording = false
    var heard: [Int16] = []
    var packets: [RTPPacket] = []

    init(_ number: UInt64, frequency: Double?, amplitude: Double = 0.2, dtx: Bool = false) throws {
        id = AudioMixer.ParticipantID(number)
        ssrc = UInt32(number) + 0xA000
        tone = frequency.map { ToneGenerator(frequency: $0, amplitude: amplitude) }
        encoder = try OpusEncoder(format: .mono48k, application: .voip, dtx: dtx)
        decoder = try OpusDecoder(format: .mono48k)
    }

    /// The next 20 ms uplink packet.
    func nextPacket() throws -> RTPPacket {
        let frame = tone?.next() ?? .silence(format: .mono48k, milliseconds: 20)
        let level = AudioLevel.rfc6464Level(frame)
        let payload = try encoder.encode(frame)
        defer {
            sequenceNumber &+= 1
            timestamp &+= 960
        }
        let extensions: [(id: UInt8, value: [UInt8])] =
            [(Self.levelExtensionId, RTPHeaderExtensionValue.audioLevelValue(voice: level <= 50, level: level))]
        return RTPPacket(payloadType: Self.payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                         extensions: extensions, payload: payload[...])
    }

    /// Takes a downlink packet: parses and decodes it, keeping the audio while recording.
    func hear(_ bytes: [UInt8]) throws {
        let packet = try RTPPacket(parsing: bytes)
        packets.append(packet)
        let frame = try decoder.decode(Array(packet.payload))
        if recording { heard += frame.samples }
    }

    /// Goertzel power of what was recorded at `frequency` (0.04 for an intact tone of amplitude 0.2), averaged over
    /// 100 ms blocks: a jitter buffer adapting its delay skips or repeats a frame, and the phase jump would cancel
    /// much of a tone's power in one analysis over the whole recording.
    func power(_ frequency: Double) -> Double {
        let block = 4_800
        let blocks = stride(from: 0, to: heard.count - block + 1, by: block).map {
            FrequencyAnalysis.goertzelPower(samples: heard[$0..<($0 + block)], sampleRate: 48_000, frequency: frequency)
        }
        return blocks.isEmpty ? 0 : blocks.reduce(0, +) / Double(blocks.count)
    }

    func decibels(_ frequency: Double) -> Double { FrequencyAnalysis.decibels(power(frequency)) }
}

/// Drives a mixer and its attendees in virtual time, one 20 ms tick at a time.
private final class Meeting {
    let mixer: AudioMixer
    var attendees: [Attendee] = []
    var now = NIODeadline.uptimeNanoseconds(7_000_000_000)
    /// Decides per attendee and frame whether the uplink packet is lost.
    var drop: (Attendee, Int) -> Bool = { _, _ in false }
    private var frame = 0
    /// Packets each tick produced, by tick.
    var packetsPerTick: [Int] = []

    init(configuration: AudioMixer.Configuration = .init(), _ attendees: [Attendee]) throws {
        mixer = try AudioMixer(configuration: configuration)
        for attendee in attendees { add(attendee) }
    }

    func add(_ attendee: Attendee, receivesMix: Bool = true) {
        attendees.append(attendee)
        mixer.addParticipant(attendee.id, attendeeId: "attendee-\(attendee.id.rawValue)",
                             outboundSSRC: attendee.ssrc &+ 0x1_0000, payloadType: Attendee.payloadType,
                             receivesMix: receivesMix)
    }

    func remove(_ attendee: Attendee) {
        attendees.removeAll { $0 === attendee }
        mixer.removeParticipant(attendee.id)
    }

    /// Runs `frames` ticks; records what everybody hears when `record` is set (after clearing earlier recordings).
    func run(_ frames: Int, record: Bool = false) throws {
        for attendee in attendees {
            attendee.recording = record
            if record { attendee.heard = [] }
        }
        for _ in 0..<frames {
            for attendee in attendees where attendee.sending {
                let packet = try attendee.nextPacket()
                guard !drop(attendee, frame) else { continue }
                mixer.receive(packet, from: attendee.id, level: packet.audioLevel(extensionId: Attendee.levelExtensionId),
                              arrival: now)
            }
            let output = mixer.tick(now: now)
            packetsPerTick.append(output.count)
            for (to, bytes) in output {
                let attendee = try #require(attendees.first { $0.id == to })
                try attendee.hear(bytes)
            }
            frame += 1
            now = try #require(mixer.nextDeadline)
        }
    }
}

@Suite struct AudioMixerTests {
    static let tones = [440.0, 660, 880]
    /// Power of an intact tone of amplitude 0.2 is 0.04 (-14 dB); "present" allows 3 dB of coding loss.
    static let present = 0.02
    /// A frequency nobody sends: the noise reference.
    static let unrelated = 1_230.0

    fileprivate func talkers(_ frequencies: [Double] = tones) throws -> [Attendee] {
        try frequencies.enumerated().map { try Attendee(UInt64($0.offset + 1), frequency: $0.element) }
    }

    /// Asserts `attendee` hears `heard` clearly and each of `absent` at least 20 dB below the weakest heard tone.
    fileprivate func expect(_ attendee: Attendee, hears heard: [Double], not absent: [Double],
                sourceLocation: SourceLocation = #_sourceLocation) {
        let weakest = heard.map { attendee.decibels($0) }.min() ?? 0
        for frequency in heard {
            #expect(attendee.power(frequency) > Self.present,
                    "\(attendee.id) hears \(frequency) Hz at \(attendee.decibels(frequency)) dB", sourceLocation: sourceLocation)
        }
        for frequency in absent + [Self.unrelated] where !heard.isEmpty {
            #expect(weakest - attendee.decibels(frequency) >= 20,
                    "\(attendee.id): \(frequency) Hz at \(attendee.decibels(frequency)) dB, weakest heard \(weakest) dB",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func everyoneHearsTheOthersButNotThemselves() throws {
        let meeting = try Meeting(try talkers())
        try meeting.run(10)
        try meeting.run(50, record: true)
        for (index, attendee) in meeting.attendees.enumerated() {
            let own = Self.tones[index]
            expect(attendee, hears: Self.tones.filter { $0 != own }, not: [own])
        }
        #expect(Set(meeting.mixer.currentSpeakers) == Set(meeting.attendees.map(\.id)))
    }

    @Test func aListenerHearsAllTalkersWithSteadyNumbering() throws {
        let listener = try Attendee(4, frequency: nil)
        let meeting = try Meeting(try talkers() + [listener])
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(listener, hears: Self.tones, not: [])
        #expect(listener.power(Self.unrelated) < Self.present / 100)
        #expect(!meeting.mixer.currentSpeakers.contains(listener.id))

        // Then everyone goes quiet, and then stops sending altogether: the downlink keeps its pace.
        for attendee in meeting.attendees { attendee.tone = nil }
        try meeting.run(50)
        for attendee in meeting.attendees { attendee.sending = false }
        let start = meeting.now
        try meeting.run(50, record: true)
        #expect(meeting.now - start == .seconds(1), "50 ticks take one second")
        #expect(listener.power(440) < 1e-6 && listener.power(880) < 1e-6)
        #expect(meeting.mixer.currentSpeakers.isEmpty)

        #expect(meeting.packetsPerTick == Array(repeating: 4, count: 160), "one packet per participant per tick")
        for attendee in meeting.attendees {
            let packets = attendee.packets
            #expect(packets.count == 160)
            #expect(packets.allSatisfy { $0.payloadType == Attendee.payloadType && $0.ssrc == attendee.ssrc &+ 0x1_0000 })
            #expect(packets.allSatisfy { !$0.payload.isEmpty })
            #expect(packets.first?.marker == true && packets.dropFirst().allSatisfy { !$0.marker })
            let steps = zip(packets, packets.dropFirst())
            #expect(steps.allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 }, "continuous sequence numbers")
            #expect(steps.allSatisfy { $1.timestamp == $0.timestamp &+ 960 }, "timestamps advance 960 per packet")
        }
    }

    @Test func nextDeadlineIsEveryTwentyMillisecondsWhileAnyoneIsPresent() throws {
        let mixer = try AudioMixer()
        #expect(mixer.nextDeadline == nil)
        #expect(mixer.tick(now: .uptimeNanoseconds(1_000)).isEmpty)
        let id = AudioMixer.ParticipantID(1)
        mixer.addParticipant(id, attendeeId: "a", outboundSSRC: 9, payloadType: 111)
        let start = NIODeadline.uptimeNanoseconds(5_000_000_000)
        #expect(try #require(mixer.nextDeadline) <= start, "the first tick is due at once")
        #expect(mixer.tick(now: start).map(\.to) == [id])
        #expect(mixer.nextDeadline == start + .milliseconds(20))
        // A late tick keeps the grid, and the mixer catches up frame by frame: 50 frames a second on average.
        _ = mixer.tick(now: start + .milliseconds(25))
        #expect(mixer.nextDeadline == start + .milliseconds(40))
        var timestamps: [UInt32] = []
        while let due = mixer.nextDeadline, due <= start + .milliseconds(300) {
            timestamps += try mixer.tick(now: start + .milliseconds(300)).map { try RTPPacket(parsing: $0.packet).timestamp }
        }
        #expect(timestamps.count == 14, "frames at 40...300 ms")
        let steps: [UInt32] = zip(timestamps, timestamps.dropFirst()).map { $1 &- $0 }
        #expect(steps.allSatisfy { $0 == 960 })
        #expect(mixer.nextDeadline == start + .milliseconds(320))
        // A stall past the catch-up bound skips the frames whose time passed; the downlink's timestamp jumps them.
        let afterStall = try mixer.tick(now: start + .milliseconds(1_330)).map { try RTPPacket(parsing: $0.packet) }
        let last = try #require(timestamps.last)
        let jumps: [UInt32] = afterStall.map { $0.timestamp &- last }
        #expect(jumps == [51 * 960], "frame 320 and 50 more skipped")
        #expect(mixer.nextDeadline == start + .milliseconds(1_340))
        mixer.removeParticipant(id)
        #expect(mixer.nextDeadline == nil)
    }

    @Test func aSendOnlyParticipantIsHeardButGetsNoMix() throws {
        let talker = try Attendee(1, frequency: 440)
        let listener = try Attendee(2, frequency: nil)
        let share = try Attendee(3, frequency: 660)
        let meeting = try Meeting([talker, listener])
        meeting.add(share, receivesMix: false)
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(listener, hears: [440, 660], not: [])
        expect(talker, hears: [660], not: [440])
        #expect(share.packets.isEmpty, "a content share gets no mix")
        #expect(meeting.packetsPerTick.allSatisfy { $0 == 2 })
    }

    /// An attendee whose Audio capability is `Send` (or `None`) gets a packet every 20 ms, all silence; it is still
    /// heard by the others, speaker or not, and hears the meeting again once allowed.
    @Test func aParticipantThatMayNotHearGetsSilenceButIsHeard() throws {
        let meeting = try Meeting(try talkers())
        let (first, deaf, third) = (meeting.attendees[0], meeting.attendees[1], meeting.attendees[2])
        try meeting.run(10)
        meeting.mixer.setHearsMeeting(false, for: deaf.id)
        try meeting.run(10)
        try meeting.run(50, record: true)
        #expect(meeting.mixer.currentSpeakers.contains(deaf.id))
        for frequency in Self.tones + [Self.unrelated] {
            #expect(deaf.power(frequency) < 1e-6, "\(frequency) Hz at \(deaf.decibels(frequency)) dB")
        }
        #expect(meeting.packetsPerTick.allSatisfy { $0 == 3 })
        expect(first, hears: [660, 880], not: [440])
        expect(third, hears: [440, 660], not: [880])

        meeting.mixer.setHearsMeeting(true, for: deaf.id)
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(deaf, hears: [440, 880], not: [660])
    }

    @Test func aMutedTalkerIsNotMixedUntilUnmuted() throws {
        let listener = try Attendee(4, frequency: nil)
        let meeting = try Meeting(try talkers() + [listener])
        let (first, muted, third) = (meeting.attendees[0], meeting.attendees[1], meeting.attendees[2])
        try meeting.run(10)
        meeting.mixer.setMuted(true, for: muted.id)
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(first, hears: [880], not: [440, 660])
        expect(third, hears: [440], not: [660, 880])
        expect(listener, hears: [440, 880], not: [660])
        expect(muted, hears: [440, 880], not: [660])

        meeting.mixer.setMuted(false, for: muted.id)
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(first, hears: [660, 880], not: [440])
        expect(listener, hears: Self.tones, not: [])
        expect(muted, hears: [440, 880], not: [660])
    }

    @Test func aLossyUplinkIsStillHeard() throws {
        let listener = try Attendee(4, frequency: nil)
        let meeting = try Meeting(try talkers() + [listener])
        let lossy = meeting.attendees[1]
        // Every tenth packet of 660 Hz is lost.
        meeting.drop = { attendee, frame in attendee === lossy && frame % 10 == 9 }
        try meeting.run(10)
        try meeting.run(50, record: true)
        expect(listener, hears: Self.tones, not: [])
        expect(meeting.attendees[0], hears: [660, 880], not: [440])
        // Recovery keeps the lossy tone within 3 dB of the intact ones.
        #expect(listener.decibels(660) > listener.decibels(440) - 3)
        // Frame by frame, not just on average: a lost frame left silent would show as 20 ms without the tone.
        let weakFrames = stride(from: 0, to: listener.heard.count - 959, by: 960).filter {
            FrequencyAnalysis.goertzelPower(samples: listener.heard[$0..<($0 + 960)], sampleRate: 48_000, frequency: 660) < 0.04 / 16
        }
        // Five packets are lost within the recording; left silent, each shows as a frame 15 dB or more down (below the
        // 12 dB line here). Opus FEC and concealment do not always restore a pure tone, but most of them.
        #expect(weakFrames.count <= 2, "frames missing 660 Hz: \(weakFrames.map { $0 / 960 })")
    }

    @Test func onlyTheLoudestSpeakersAreMixed() throws {
        // Frequencies chosen off each other's intermodulation products (2a-b, a+b-c, a-b), which lossy coding of a
        // mix puts some 35 dB down.
        let amplitudes = [0.04, 0.26, 0.07, 0.18, 0.12]
        let frequencies = [450.0, 600, 780, 900, 1_300]
        let talkers = try zip(frequencies, amplitudes).enumerated().map {
            try Attendee(UInt64($0.offset + 1), frequency: $0.element.0, amplitude: $0.element.1)
        }
        let listener = try Attendee(9, frequency: nil)
        let meeting = try Meeting(configuration: .init(speakers: 3), talkers + [listener])
        try meeting.run(10)
        try meeting.run(50, record: true)
        #expect(meeting.mixer.currentSpeakers == [talkers[1].id, talkers[3].id, talkers[4].id])
        // Mixed tones arrive within 3 dB; the weakest mixed one (1300 Hz at 0.12) stands 20 dB above the unmixed.
        #expect(listener.power(600) > 0.26 * 0.26 / 2)
        #expect(listener.power(900) > 0.18 * 0.18 / 2)
        #expect(listener.power(1_300) > 0.12 * 0.12 / 2)
        for absent in [450.0, 780] {
            #expect(listener.decibels(1_300) - listener.decibels(absent) >= 20, "\(absent) Hz: \(listener.decibels(absent)) dB")
        }
        // A quiet talker not mixed hears the three loudest; a mixed one hears the two others but not itself.
        let quiet = talkers[0]
        #expect(quiet.power(600) > 0.26 * 0.26 / 2 && quiet.power(900) > 0.18 * 0.18 / 2)
        #expect(quiet.decibels(1_300) - quiet.decibels(780) >= 20)
        let loud = talkers[1]
        #expect(loud.power(900) > 0.18 * 0.18 / 2 && loud.power(1_300) > 0.12 * 0.12 / 2)
        #expect(loud.decibels(1_300) - loud.decibels(600) >= 20)
    }

    @Test func aSpeakerIsHeldThroughAPause() throws {
        let listener = try Attendee(4, frequency: nil)
        let meeting = try Meeting(try talkers() + [listener])
        let pausing = meeting.attendees[0]
        try meeting.run(20)
        pausing.tone = nil
        try meeting.run(10)  // 200 ms: within the 500 ms hold
        #expect(meeting.mixer.currentSpeakers.contains(pausing.id))
        try meeting.run(25)  // 700 ms: released
        #expect(!meeting.mixer.currentSpeakers.contains(pausing.id))
        #expect(meeting.mixer.currentSpeakers.count == 2)
    }

    /// A talker whose pauses are digital silence (Voice Focus, a quiet virtual microphone) is released after the
    /// hold and must be heard again from its next word, not seconds later.
    @Test(arguments: [false, true])
    func aTalkerIsHeardAgainAfterAPauseLongerThanTheHold(dtx: Bool) throws {
        let talker = try Attendee(1, frequency: 440, dtx: dtx)
        let listener = try Attendee(2, frequency: nil)
        let meeting = try Meeting([talker, listener])
        try meeting.run(50)
        talker.tone = nil
        try meeting.run(50)  // 1 s of silence: released
        #expect(!meeting.mixer.currentSpeakers.contains(talker.id))
        talker.tone = ToneGenerator(frequency: 440, amplitude: 0.2)
        try meeting.run(5)
        #expect(meeting.mixer.currentSpeakers.contains(talker.id))
        // From 100 ms after the word starts, it is heard (the jitter buffer's delay is under that here).
        try meeting.run(50, record: true)
        expect(listener, hears: [440], not: [])
    }

    /// A meeting nobody talks in costs no codec work: once the hold has passed no tick encodes, yet everyone still
    /// gets a packet every 20 ms (clients expect 50 a second); the first word wakes the encoders and is heard.
    @Test func aSilentMeetingEncodesNothingYetKeepsItsRateAndWakesForAWord() throws {
        let attendees = try (1...3).map { try Attendee(UInt64($0), frequency: nil) }
        let meeting = try Meeting(attendees)
        try meeting.run(20)
        let settled = meeting.mixer.framesEncoded
        #expect(settled == AudioMixer.silenceHoldTicks)
        try meeting.run(100)
        #expect(meeting.mixer.framesEncoded == settled)
        #expect(meeting.packetsPerTick.count == 120 && meeting.packetsPerTick.allSatisfy { $0 == 3 })
        // One packet of silence for everyone, numbered on without a gap.
        let listener = attendees[1]
        #expect(Set(listener.packets.suffix(100).map { Array($0.payload) }).count == 1)
        let sequences = listener.packets.map(\.sequenceNumber)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        attendees[0].tone = ToneGenerator(frequency: 440, amplitude: 0.2)
        try meeting.run(5)
        try meeting.run(50, record: true)
        #expect(meeting.mixer.framesEncoded > settled)
        expect(listener, hears: [440], not: [])
        expect(attendees[2], hears: [440], not: [])
    }

    @Test func aRemovedParticipantGetsNothingAndIsNoLongerHeard() throws {
        let listener = try Attendee(4, frequency: nil)
        let meeting = try Meeting(try talkers() + [listener])
        try meeting.run(20)
        let leaving = meeting.attendees[1]
        let before = leaving.packets.count
        meeting.remove(leaving)
        try meeting.run(10)
        try meeting.run(50, record: true)
        #expect(leaving.packets.count == before)
        #expect(meeting.packetsPerTick.suffix(60).allSatisfy { $0 == 3 })
        expect(listener, hears: [440, 880], not: [660])
        expect(meeting.attendees[0], hears: [880], not: [440, 660])
        #expect(meeting.mixer.participantCount == meeting.attendees.count)
        #expect(!meeting.mixer.currentSpeakers.contains(leaving.id))

        // The leaver's speaker slot is free again: a newcomer takes it.
        let newcomer = try Attendee(5, frequency: 1_100)
        meeting.add(newcomer)
        try meeting.run(10)
        try meeting.run(50, record: true)
        #expect(meeting.mixer.currentSpeakers.count == 3)
        expect(listener, hears: [440, 880, 1_100], not: [660])
        expect(newcomer, hears: [440, 880], not: [660, 1_100])
    }

    @Test func stereoUplinksAreDownmixed() throws {
        let mixer = try AudioMixer()
        let (talker, listener) = (AudioMixer.ParticipantID(1), AudioMixer.ParticipantID(2))
        mixer.addParticipant(talker, attendeeId: "t", outboundSSRC: 11, payloadType: 111)
        mixer.addParticipant(listener, attendeeId: "l", outboundSSRC: 12, payloadType: 111)
        let encoder = try OpusEncoder(format: .stereo48k, application: .audio, bitrate: 64_000, dtx: false)
        let decoder = try OpusDecoder(format: .mono48k)
        var tone = ToneGenerator(frequency: 500, amplitude: 0.2, format: .stereo48k)
        var now = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var heard: [Int16] = []
        for frame in 0..<60 {
            let payload = try encoder.encode(tone.next())
            let packet = RTPPacket(payloadType: 111, sequenceNumber: UInt16(frame), timestamp: UInt32(frame * 960),
                                   ssrc: 5, extensions: [(1, [14])], payload: payload[...])
            mixer.receive(packet, from: talker, level: packet.audioLevel(extensionId: 1), arrival: now)
            for (to, bytes) in mixer.tick(now: now) where to == listener {
                let samples = try decoder.decode(Array(try RTPPacket(parsing: bytes).payload)).samples
                if frame >= 10 { heard += samples }
            }
            now = try #require(mixer.nextDeadline)
        }
        #expect(FrequencyAnalysis.goertzelPower(samples: heard, sampleRate: 48_000, frequency: 500) > 0.02)
    }
}
