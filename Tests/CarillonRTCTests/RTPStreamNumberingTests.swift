import CarillonRTC
import Testing

/// RFC 3550 numbering of an originated stream: one sequence number per packet (wrapping), the timestamp by media
/// time, including time that passes without a packet.
@Suite struct RTPStreamNumberingTests {
    @Test func sequenceByPacketTimestampByMediaTimeAcrossTheWrap() {
        var numbering = RTPStreamNumbering(sequenceNumber: 65_535, timestamp: UInt32.max - 479)
        #expect(numbering.take(samples: 960) == (65_535, UInt32.max - 479))
        #expect(numbering.take(samples: 960) == (0, 480))
        // Muted for 40 ms: no packet, no sequence number, the media time moves on.
        numbering.skip(samples: 1_920)
        #expect(numbering.nextSequenceNumber == 1 && numbering.nextTimestamp == 3_360)
        #expect(numbering.take(samples: 960) == (1, 3_360))
    }
}
