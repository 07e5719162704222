import CarillonCodecs
import CarillonRTC
import NIOCore

/// The audio mixer of one meeting (sans-IO): takes every attendee's Opus RTP uplink and, every 20 ms, gives every
/// attendee one mixed Opus RTP packet.
///
/// Each tick it ranks the unmuted participants by their recent level (read from the RFC 6464 `ssrc-audio-level`
/// extension, so nobody is decoded just to be ranked), picks the loudest ``Configuration/speakers`` that pass the
/// voice threshold (kept through pauses for ``Configuration/holdTime``), and decodes only them. Everyone else's
/// jitter buffer is still advanced, so their latency does not build up while they are not mixed.
///
/// Encoders: the mix of all speakers is encoded once, by a shared encoder, and the same payload goes to every
/// non-speaker under its own RTP header. Each speaker hears everyone but itself, encoded by a private encoder it
/// borrows for as long as it is a speaker. So a tick decodes at most N streams and encodes at most N + 1, however
/// large the meeting. When a participant moves between the shared and a private encoder its receiver's decoder sees
/// packets from another encoder state; Opus decoders accept that, at the cost of a brief discontinuity at the switch,
/// which happens only when the participant starts or stops being a speaker. Borrowed encoders are reset first, so a
/// receiver never gets a prediction from someone else's stream.
///
/// The downlink never pauses: one packet per participant per tick, since clients expect 50 packets/s and warn of
/// unusable audio otherwise. While nobody is a speaker, the mix is silence: after ``silenceHoldTicks`` ticks of it
/// (the encoder's lookahead and the last words' tail flushed) every participant gets one Opus packet of silence
/// encoded once at creation, and no tick encodes anything, so a meeting nobody talks in costs no codec work; the
/// shared encoder is reset when someone speaks again. Packets are plain RTP (the caller protects them),
/// 20 ms of 48 kHz mono Opus with in-band FEC, timestamps +960 per packet.
///
/// Cost: a tick's work is the N decodes and N + 1 encodes (none in silence) plus a jitter buffer step and an RTP
/// header per participant, so it grows only slowly with the meeting. Uplinks without the level extension add one
/// decode per packet (at 16 kHz) to measure them.
///
/// Threading: not thread-safe. One owner, the meeting's event loop, calls everything; time comes in as `now`.
public final class AudioMixer {
    /// The length of every mixed frame and the tick period.
    public static let frameDuration = TimeAmount.milliseconds(20)
    /// The format everything is decoded to, mixed in and encoded from; stereo uplinks are downmixed by the decoder.
    public static let format = AudioFormat.mono48k
    private static let samplesPerFrame = 960

    /// The configuration in effect (out-of-range values brought into range).
    public let configuration: Configuration
    /// The participants mixed in the last tick, loudest first.
    public private(set) var currentSpeakers: [ParticipantID] = []

    private var participants: [ParticipantID: MixerParticipant] = [:]
    /// Participants in the order they were added: the order of ``tick(now:)``'s output.
    private var order: [ParticipantID] = []
    private var freeSlots: [SpeakerSlot]
    private let sharedEncoder: OpusEncoder
    /// A valid Opus packet of silence: what a silent meeting sends, and what goes out if encoding ever fails, so the
    /// downlink keeps its rate.
    private let silencePacket: [UInt8]
    /// Ticks in a row with nobody mixed.
    private var silentTicks = 0
    /// Whether the shared encoder sat out silent ticks (it is reset before it encodes again).
    private var sharedEncoderIdle = false
    /// Opus frames encoded so far (the shared encoder and the speakers' own).
    public private(set) var framesEncoded = 0
    /// Ticks of silence before the mix stops being encoded (100 ms).
    public static let silenceHoldTicks = 5
    /// The tick grid: started by the first tick, stopped when the last participant leaves.
    private var clock = MediaFrameClock(period: AudioMixer.frameDuration)
    private var sum = [Int32](repeating: 0, count: AudioMixer.samplesPerFrame)

    /// Creates a mixer with its shared encoder and one decoder and encoder per speaker slot; throws when libopus
    /// rejects the codec settings.
    public init(configuration: Configuration = .init()) throws {
        let configuration = configuration.sanitized
        self.configuration = configuration
        sharedEncoder = try Self.makeEncoder(configuration)
        freeSlots = try (0..<configuration.speakers).map { _ in
            SpeakerSlot(decoder: try OpusDecoder(format: Self.format), encoder: try Self.makeEncoder(configuration))
        }
        silencePacket = try Self.makeEncoder(configuration)
            .encode(.silence(format: Self.format, milliseconds: 20))
    }

    private static func makeEncoder(_ configuration: Configuration) throws(OpusError) -> OpusEncoder {
        // DTX off: the downlink must carry a packet every 20 ms even in silence.
        try OpusEncoder(format: format, application: .voip, bitrate: configuration.bitrate,
                        complexity: configuration.encoderComplexity, inbandFEC: true, dtx: false,
                        expectedPacketLossPercent: configuration.expectedPacketLossPercent)
    }

    // MARK: Participants

    /// Adds a participant: its uplink is mixed from now on and it gets a downlink packet every tick. Adding an id
    /// already present replaces that participant (a new media session starts afresh).
    ///
    /// `outboundSSRC` and `payloadType` (its negotiated Opus payload type) go into its downlink packets. A participant
    /// added with `receivesMix` false (a content share, which plays nothing) is mixed for the others but gets no
    /// packets, and costs no encode of its own.
    public func addParticipant(_ id: ParticipantID, attendeeId: String, outboundSSRC: UInt32, payloadType: UInt8,
                               receivesMix: Bool = true) {
        if participants[id] != nil { removeParticipant(id) }
        let downlink = OutboundAudioStream(ssrc: outboundSSRC, payloadType: payloadType,
                                           samplesPerPacket: UInt32(Self.samplesPerFrame))
        participants[id] = MixerParticipant(attendeeId: attendeeId, downlink: downlink, receivesMix: receivesMix,
                                            jitterBuffer: configuration.jitterBuffer)
        order.append(id)
    }

    /// Removes a participant: it is no longer mixed and gets no more packets. Unknown ids are ignored.
    public func removeParticipant(_ id: ParticipantID) {
        guard let participant = participants.removeValue(forKey: id) else { return }
        release(participant)
        order.removeAll { $0 == id }
        currentSpeakers.removeAll { $0 == id }
        if order.isEmpty { clock.stop() }
    }

    /// Mutes or unmutes a participant. A muted participant is never mixed, even if it still sends audio, and reports
    /// no level; its uplink is still buffered and discarded so that unmuting resumes without delay.
    public func setMuted(_ muted: Bool, for id: ParticipantID) {
        guard let participant = participants[id] else { return }
        participant.muted = muted
        if muted {
            release(participant)
            currentSpeakers.removeAll { $0 == id }
        }
    }

    /// Lets a participant hear the meeting, or sends it silence instead of the mix (an attendee whose Audio
    /// capability is `Send` or `None`); its own audio is mixed for the others as before. Unknown ids are ignored.
    public func setHearsMeeting(_ hears: Bool, for id: ParticipantID) {
        participants[id]?.hearsMeeting = hears
    }

    /// The number of participants.
    public var participantCount: Int { order.count }

    /// Whether a participant is muted (nil for an unknown one).
    public func isMuted(_ id: ParticipantID) -> Bool? { participants[id]?.muted }

    /// The attendee a participant was added for.
    public func attendeeId(of id: ParticipantID) -> String? { participants[id]?.attendeeId }

    // MARK: Input

    /// Takes an RTP packet of a participant's uplink (already decrypted), with its arrival time and its RFC 6464
    /// level (0 loudest, 127 silence; nil when none is known, which ranks the packet as silent). The caller reads the
    /// level once, from the `ssrc-audio-level` extension or by measuring the packet, and reports the same value
    /// elsewhere (AUDIO_METADATA). Packets of unknown participants are ignored.
    public func receive(_ packet: RTPPacket, from id: ParticipantID, level: UInt8?, arrival: NIODeadline) {
        guard let participant = participants[id] else { return }
        participant.jitterBuffer.insert(packet, arrival: arrival)
        if let level { participant.activity.record(level: level, arrival: arrival) }
    }

    // MARK: Output

    /// When ``tick(now:)`` is next due, nil while nobody is present. Before the first tick it is in the past: tick at
    /// once, and every ``frameDuration`` after.
    public var nextDeadline: NIODeadline? {
        order.isEmpty ? nil : clock.nextFrame ?? .uptimeNanoseconds(0)
    }

    /// Produces one frame: exactly one RTP packet for every participant that receives the mix, in the order they were
    /// added.
    ///
    /// Call it when ``nextDeadline`` is reached, and again while ``nextDeadline`` is still in the past: a late mixer
    /// catches up frame by frame on its 20 ms grid (``MediaFrameClock``), so it sends 50 frames a second on average
    /// however late its loop runs. After a stall longer than the clock's catch-up bound the missed frames are skipped
    /// and every downlink's timestamp jumps over them.
    public func tick(now: NIODeadline) -> [(to: ParticipantID, packet: [UInt8])] {
        var pool = DatagramBufferPool(limit: 0)
        return tick(now: now, pool: &pool)
    }

    /// ``tick(now:)`` with each packet built in an array from `pool` (the meeting's, which its sent datagrams return
    /// to), so a steady mix allocates no packet.
    public func tick(now: NIODeadline, pool: inout DatagramBufferPool) -> [(to: ParticipantID, packet: [UInt8])] {
        guard !order.isEmpty else {
            clock.stop()
            return []
        }
        if clock.nextFrame == nil { clock.start(at: now) }
        guard let skipped = clock.takeFrame(now: now) else { return [] }
        if skipped > 0 {
            for id in order { participants[id]!.downlink.skip(frames: skipped) }
        }
        for id in order { participants[id]!.activity.update(now: now, threshold: configuration.voiceThreshold) }
        assignSlots(to: selectSpeakers(now: now))

        // Pull one frame from every jitter buffer; decode only the speakers'.
        sum.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        var voices: [(id: ParticipantID, samples: [Int16])] = []
        for id in order {
            let participant = participants[id]!
            if let slot = participant.slot {
                let samples = decodedFrame(participant, slot: slot, now: now)
                add(samples)
                voices.append((id, samples))
            } else {
                skipFrame(participant, now: now)
            }
        }

        silentTicks = voices.isEmpty ? silentTicks + 1 : 0
        let silent = silentTicks > Self.silenceHoldTicks
        if !voices.isEmpty, sharedEncoderIdle {
            sharedEncoder.reset()
            sharedEncoderIdle = false
        }
        var output: [(to: ParticipantID, packet: [UInt8])] = []
        output.reserveCapacity(order.count)
        var sharedPacket: [UInt8]?
        for id in order {
            let participant = participants[id]!
            guard participant.receivesMix else { continue }
            let payload: [UInt8]
            if !participant.hearsMeeting {
                payload = silencePacket
            } else if let slot = participant.slot, let own = voices.first(where: { $0.id == id })?.samples {
                // Minus-self: the sum without this speaker, clipped once.
                payload = encode(mixedSamples(excluding: own), with: slot.encoder)
            } else if silent {
                sharedEncoderIdle = true
                payload = silencePacket
            } else {
                if sharedPacket == nil { sharedPacket = encode(mixedSamples(excluding: nil), with: sharedEncoder) }
                payload = sharedPacket!
            }
            var packet = pool.take()
            participant.downlink.packet(payload: payload, into: &packet)
            output.append((id, packet))
        }
        return output
    }

    // MARK: Tick internals

    /// The loudest eligible participants, loudest first: unmuted, speaking or within the hold time, ranked by the
    /// level of their speech (a pausing speaker keeps its rank), current speakers favoured by the switch margin.
    private func selectSpeakers(now: NIODeadline) -> [ParticipantID] {
        guard configuration.speakers > 0 else { return [] }
        var candidates: [(id: ParticipantID, score: Double, position: Int)] = []
        for (position, id) in order.enumerated() {
            let participant = participants[id]!
            guard !participant.muted, participant.activity.isActive(now: now, hold: configuration.holdTime) else { continue }
            let margin = participant.slot == nil ? 0 : configuration.switchMarginDB
            candidates.append((id, participant.activity.speechLevel - margin, position))
        }
        candidates.sort { ($0.score, $0.position) < ($1.score, $1.position) }
        return candidates.prefix(configuration.speakers).map(\.id)
    }

    private func assignSlots(to speakers: [ParticipantID]) {
        for id in currentSpeakers where !speakers.contains(id) {
            if let participant = participants[id] { release(participant) }
        }
        for id in speakers {
            let participant = participants[id]!
            guard participant.slot == nil, let slot = freeSlots.popLast() else { continue }
            slot.reset()
            participant.slot = slot
        }
        currentSpeakers = speakers
    }

    private func release(_ participant: MixerParticipant) {
        guard let slot = participant.slot else { return }
        participant.slot = nil
        freeSlots.append(slot)
    }

    /// The speaker's next 20 ms, decoded (or recovered, concealed, or silent as its jitter buffer says).
    private func decodedFrame(_ participant: MixerParticipant, slot: SpeakerSlot, now: NIODeadline) -> [Int16] {
        participant.playout.nextFrame(from: &participant.jitterBuffer, decoder: slot.decoder, now: now)
    }

    /// Advances a non-speaker's jitter buffer by 20 ms of audio without decoding any of it.
    private func skipFrame(_ participant: MixerParticipant, now: NIODeadline) {
        participant.playout.skipFrame(from: &participant.jitterBuffer, now: now)
    }

    private func add(_ samples: [Int16]) {
        sum.withUnsafeMutableBufferPointer { total in
            samples.withUnsafeBufferPointer { input in
                for index in 0..<min(total.count, input.count) { total[index] &+= Int32(input[index]) }
            }
        }
    }

    /// The sum of all speakers, less `own` when given, clipped to 16 bits.
    private func mixedSamples(excluding own: [Int16]?) -> [Int16] {
        [Int16](unsafeUninitializedCapacity: Self.samplesPerFrame) { output, count in
            sum.withUnsafeBufferPointer { total in
                if let own {
                    own.withUnsafeBufferPointer { own in
                        for index in 0..<Self.samplesPerFrame { output[index] = Self.clip(total[index] - Int32(own[index])) }
                    }
                } else {
                    for index in 0..<Self.samplesPerFrame { output[index] = Self.clip(total[index]) }
                }
            }
            count = Self.samplesPerFrame
        }
    }

    private static func clip(_ value: Int32) -> Int16 {
        Int16(truncatingIfNeeded: min(max(value, Int32(Int16.min)), Int32(Int16.max)))
    }

    private func encode(_ samples: [Int16], with encoder: OpusEncoder) -> [UInt8] {
        framesEncoded += 1
        return (try? encoder.encode(AudioFrame(format: Self.format, samples: samples))) ?? silencePacket
    }
}
