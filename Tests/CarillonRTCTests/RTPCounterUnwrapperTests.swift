import CarillonRTC
import Testing

/// The one unwrapper, at both widths: forward across the wrap, a late packet from before it stays behind, and the
/// highest value moves forward only.
@Suite struct RTPCounterUnwrapperTests {
    @Test func sequenceNumbersAndTimestampsUnwrapAcrossTheWrap() {
        var sequences = SequenceUnwrapper()
        #expect(sequences.unwrap(65_534) == 65_534)
        #expect(sequences.unwrap(1) == 65_537)
        // A late packet from before the wrap is behind, and does not move the highest value back.
        #expect(sequences.unwrap(65_535) == 65_535)
        #expect(sequences.unwrap(2) == 65_538)
        var timestamps = TimestampUnwrapper()
        #expect(timestamps.unwrap(UInt32.max - 959) == Int64(UInt32.max) - 959)
        #expect(timestamps.unwrap(0) == Int64(UInt32.max) + 1)
        #expect(timestamps.unwrap(UInt32.max) == Int64(UInt32.max))
        // Half the space or more ahead counts as behind.
        var jump = SequenceUnwrapper()
        #expect(jump.unwrap(0) == 0)
        #expect(jump.unwrap(32_768) == -32_768)
    }
}
