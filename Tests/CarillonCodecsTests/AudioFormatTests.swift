import CarillonCodecs
import Testing

/// Frame arithmetic of the common formats.
@Suite struct AudioFormatTests {
    @Test func countsSamplesPerFrame() {
        #expect(AudioFormat.mono48k.samplesPerFrame(milliseconds: 20) == 960)
        #expect(AudioFormat.mono16k.samplesPerFrame(milliseconds: 10) == 160)
        #expect(AudioFormat.stereo48k.interleavedSampleCount(milliseconds: 20) == 1920)
        #expect(AudioFormat(sampleRate: 44_100, channels: 1).samplesPerFrame(milliseconds: 10) == 441)
    }
}
