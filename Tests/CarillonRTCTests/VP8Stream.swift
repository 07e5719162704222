import CarillonMedia
import CarillonRTC
import NIOCore

/// A made-up VP8 sender for tests: frames of recognisable bytes (a key frame's tag has P = 0 and the start code, a
/// delta frame's P = 1), packetised and numbered as a real sender would.
struct VP8Stream {
    var packetizer: VP8Packetizer
    var sequenceNumber: UInt16
    var timestamp: UInt32
    let ssrc: UInt32
    let payloadType: UInt8
    /// The frames sent, by timestamp.
    var sent: [UInt32: [UInt8]] = [:]

    init(ssrc: UInt32 = 0x1111, payloadType: UInt8 = 96, firstSequenceNumber: UInt16 = 65_500,
         firstTimestamp: UInt32 = 1_000, firstPictureID: UInt16 = 100, maximumPayloadSize: Int = 1_100) {
        packetizer = VP8Packetizer(maximumPayloadSize: maximumPayloadSize, firstPictureID: firstPictureID)
        sequenceNumber = firstSequenceNumber
        timestamp = firstTimestamp
        self.ssrc = ssrc
        self.payloadType = payloadType
    }

    static func frameData(key: Bool, size: Int, seed: UInt32) -> [UInt8] {
        var data = (0..<size).map { UInt8(truncatingIfNeeded: UInt32($0) &* 31 &+ seed &* 7) }
        data[0] = key ? 0x50 : 0x51
        if key, size >= 10 {
            data[3] = 0x9D; data[4] = 0x01; data[5] = 0x2A
            data[6] = 0x40; data[7] = 0x01; data[8] = 0xB4; data[9] = 0x00  // 320 x 180
        }
        return data
    }

    /// The RTP packets of the next frame (plain, unencrypted), advancing the timestamp by one 30 fps frame.
    mutating func nextFrame(key: Bool, size: Int) -> [[UInt8]] {
        let data = Self.frameData(key: key, size: size, seed: timestamp)
        sent[timestamp] = data
        let payloads = packetizer.payloads(for: data[...])
        var packets: [[UInt8]] = []
        for (index, payload) in payloads.enumerated() {
            packets.append(RTPPacket(marker: index == payloads.count - 1, payloadType: payloadType,
                                     sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                                     payload: payload[...]).serialized())
            sequenceNumber &+= 1
        }
        timestamp &+= 3_000
        return packets
    }
}

extension VP8FrameAssembler {
    /// Inserts a serialized RTP packet.
    mutating func insert(_ packet: [UInt8], now: NIODeadline) -> [Frame] {
        let parsed = try! RTPPacket(parsing: packet)
        return insert(sequenceNumber: parsed.sequenceNumber, timestamp: parsed.timestamp, marker: parsed.marker,
                      payload: parsed.payload, now: now)
    }
}
