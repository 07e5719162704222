import CarillonCodecs
import CarillonRTC

/// Opus packets encoded once before a benchmark, so its bots send real audio without encoding per packet.
///
/// Why: 250 bots encoding live would measure the load generator, not the server. Cost: one second of audio encoded
/// at creation (50 packets of 20 ms); afterwards the packets are shared read-only. Threading: a value, safe anywhere.
struct PreEncodedOpus: Sendable {
    /// One second of a tone, 20 ms per packet, 48 kHz stereo (the offer's `opus/48000/2`).
    let tone: [[UInt8]]
    /// The audio level (RFC 6464 -dBov) of the tone's packets.
    let toneLevel: UInt8
    /// A packet of silence, as a DTX sender sends one every 400 ms.
    let silence: [UInt8]

    /// Encodes one second of a `frequency` Hz tone and one frame of silence.
    init(frequency: Double) throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let encoder = try OpusEncoder(format: format, application: .voip, complexity: 4, dtx: false)
        var generator = ToneGenerator(frequency: frequency, amplitude: 0.3, format: format)
        tone = try (0..<50).map { _ in try encoder.encode(generator.next(milliseconds: 20)) }
        toneLevel = 10
        silence = try encoder.encode(.silence(format: format, milliseconds: 20))
    }

    /// The RTP packet of one 20 ms frame: Opus on `payloadType`, the audio level on extension id 1 (the offer's).
    static func packet(payload: [UInt8], level: UInt8, voice: Bool, payloadType: UInt8, sequenceNumber: UInt16,
                       timestamp: UInt32, ssrc: UInt32) -> [UInt8] {
        var bytes = RTPPacket(payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                              extensions: [(1, RTPHeaderExtensionValue.audioLevelValue(voice: voice, level: level))],
                              payload: payload[...]).serialized()
        bytes.reserveCapacity(bytes.count + 16)
        return bytes
    }
}
