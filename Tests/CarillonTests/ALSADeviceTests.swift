import CarillonCodecs
import Glibc
import Testing

@testable import Carillon

/// The ALSA source and sink against libasound's `null` PCM (defined by alsa.conf: playback discards, capture gives
/// zeros), which needs no sound card, so these run in containers and CI.
@Suite struct ALSADeviceTests {
    @Test(arguments: [AudioFormat.mono16k, .mono48k, .stereo48k])
    func playbackToNullNeverBlocks(format: AudioFormat) throws {
        let logger = RecordingLogger()
        let sink = try ALSAPlaybackSink(pcmName: "null", format: format, logger: logger)
        #expect(sink.pcmName == "null" && sink.isOpen)
        var tone = ToneAudioSource(frequency: 440, amplitude: 0.25, format: format)
        let frames = (0..<50).map { _ in tone.read(frameMilliseconds: 20) }
        let clock = ContinuousClock()
        // 50 frames are a second of audio: a blocking write would take about that long once the buffer is full.
        let elapsed = clock.measure {
            for frame in frames { sink.write(frame) }
        }
        #expect(elapsed < .milliseconds(300), "50 writes took \(elapsed)")
        #expect(sink.framesDropped == 0)
        sink.close()
        #expect(!sink.isOpen)
        sink.close()
        sink.write(frames[0])
        #expect(logger.messages(at: .ERROR).isEmpty)
    }

    @Test func playbackConvertsAFrameInAnotherFormat() throws {
        let sink = try ALSAPlaybackSink(pcmName: "null", format: .mono48k, logger: RecordingLogger())
        sink.write(.silence(format: .stereo48k, milliseconds: 20))
        sink.write(AudioFrame(format: .mono16k, samples: []))
        #expect(sink.framesDropped == 0)
    }

    @Test(arguments: [(AudioFormat.mono16k, 20), (.mono48k, 10), (.stereo48k, 20), (.stereo48k, 60)])
    func captureFromNullReturnsExactlyTheRequestedLength(format: AudioFormat, milliseconds: Int) throws {
        let logger = RecordingLogger()
        let source = try ALSACaptureSource(pcmName: "null", format: format, logger: logger)
        #expect(source.pcmName == "null" && source.isOpen)
        let clock = ContinuousClock()
        var frames: [AudioFrame] = []
        let elapsed = clock.measure {
            for _ in 0..<50 { frames.append(source.read(frameMilliseconds: milliseconds)) }
        }
        #expect(elapsed < .milliseconds(300), "50 reads took \(elapsed)")
        let expected = format.interleavedSampleCount(milliseconds: milliseconds)
        #expect(frames.allSatisfy { $0.format == format && $0.samples.count == expected })
        #expect(frames.allSatisfy { $0.isSilent })
        source.close()
        #expect(!source.isOpen)
        #expect(source.read(frameMilliseconds: milliseconds).samples.count == expected)
        #expect(source.read(frameMilliseconds: 0).samples.isEmpty)
    }

    @Test(arguments: [AudioDeviceEndpoint.Direction.input, .output])
    func openingAnUnknownPCMThrowsATypedError(direction: AudioDeviceEndpoint.Direction) {
        let name = "carillon_no_such_pcm"
        do throws(ALSAError) {
            if direction == .input {
                _ = try ALSACaptureSource(pcmName: name, format: .mono48k, logger: RecordingLogger())
            } else {
                _ = try ALSAPlaybackSink(pcmName: name, format: .mono48k, logger: RecordingLogger())
            }
            Issue.record("opening \(name) succeeded")
        } catch {
            #expect(error.pcmName == name)
            #expect(error.step == .open)
            #expect(error.code == -ENOENT)
            #expect(error.message == "No such file or directory")
            #expect(error.description == "ALSA PCM \(name): cannot open: No such file or directory")
        }
    }

    @Test func anUnusableFormatIsRefusedBeforeOpening() {
        #expect(throws: ALSAError(pcmName: "null", step: .configure, code: -EINVAL)) {
            try ALSAPlaybackSink(pcmName: "null", format: AudioFormat(sampleRate: 48_000, channels: 0), logger: RecordingLogger())
        }
    }

    @Test(arguments: [AudioDeviceEndpoint.Direction.input, .output])
    func errorsAreRecoveredFromAndLoggedOncePerKind(direction: AudioDeviceEndpoint.Direction) throws {
        let logger = RecordingLogger()
        let pcm = try ALSAPCM(name: "null", direction: direction, format: .mono48k, bufferMicroseconds: 80_000,
                              startThreshold: 1, logger: logger)
        #expect(pcm.outcome(960) == .frames(960))
        #expect(pcm.outcome(-Int(EAGAIN)) == .wouldBlock)
        for _ in 0..<3 { #expect(pcm.outcome(-Int(EPIPE)) == .recovered) }
        #expect(pcm.outcome(-Int(EINTR)) == .recovered)
        // Resumed, or prepared afresh, without waiting.
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(pcm.outcome(-Int(ESTRPIPE)) == .recovered) }
        #expect(elapsed < .milliseconds(100))
        for _ in 0..<3 { #expect(pcm.outcome(-Int(ENODEV)) == .failed) }
        let role = direction == .input ? "capture" : "playback"
        #expect(logger.messages(at: .ERROR) == [
            "ALSA \(role) null: \(direction == .input ? "overrun" : "underrun"), restarting the stream (logged once)",
            "ALSA \(role) null: the device was suspended, resuming (logged once)",
            "ALSA \(role) null: No such device; \(direction == .input ? "sending silence" : "dropping audio") while it lasts (logged once)",
        ])
        // Still usable after all that.
        var samples = [Int16](repeating: 0, count: 960)
        let transfer = samples.withUnsafeMutableBufferPointer { buffer in
            direction == .input ? pcm.read(into: buffer.baseAddress!, frames: 960) : pcm.write(buffer.baseAddress!, frames: 960)
        }
        #expect(transfer == .frames(960))
        pcm.close()
        #expect(samples.withUnsafeBufferPointer { pcm.write($0.baseAddress!, frames: 960) } == .failed)
    }

    @Test func listedDevicesOpenThroughThePlugLayer() {
        #expect(AudioDeviceEndpoint.alsaPCMName(card: 1, device: 0) == "plughw:1,0")
    }
}
