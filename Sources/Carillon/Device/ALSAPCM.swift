import CCarillonALSA
import CarillonCodecs
import Glibc

/// An ALSA PCM opened for a session: non-blocking, in the session's format (S16_LE interleaved, its rate and
/// channels), shared by ``ALSACaptureSource`` and ``ALSAPlaybackSink``.
///
/// Every call returns at once, because the session's event loop calls it: the PCM is opened with `SND_PCM_NONBLOCK`,
/// so a transfer that would wait returns ``Transfer/wouldBlock``, and recovery never waits either. Once open, errors
/// are logged once per kind and never thrown: a failing device must not stop the session. Closed by ``close()`` or
/// when released. Owned by one thread at a time (the session's loop); not thread-safe.
final class ALSAPCM {
    /// What a read or write did.
    enum Transfer: Equatable {
        /// This many frames (samples per channel) were transferred, possibly fewer than asked or none.
        case frames(Int)
        /// The device has nothing to read or no room to write now.
        case wouldBlock
        /// An overrun, underrun or suspend was recovered from: the stream is ready again.
        case recovered
        /// The device fails (unplugged, broken, closed); the error was logged.
        case failed
    }

    /// The ALSA name, for example `plughw:1,0` or `null`.
    let name: String
    /// Capture (`input`) or playback (`output`).
    let direction: AudioDeviceEndpoint.Direction
    /// The format of the samples transferred.
    let format: AudioFormat
    /// Frames the device buffer holds, as the device granted them.
    let bufferFrames: Int

    private var handle: OpaquePointer?
    private let logger: any Logger
    private var reported: Set<String> = []

    /// Opens `name` for `direction` in `format` with a device buffer of about `bufferMicroseconds` (periods of a
    /// quarter of it); a playback stream starts once `startThreshold` frames are queued, a capture stream at once.
    init(name: String, direction: AudioDeviceEndpoint.Direction, format: AudioFormat, bufferMicroseconds: UInt32,
         startThreshold: Int, logger: any Logger) throws(ALSAError) {
        guard format.sampleRate > 0, format.channels > 0 else {
            throw ALSAError(pcmName: name, step: .configure, code: -EINVAL)
        }
        var opened: OpaquePointer?
        let stream = direction == .input ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        let status = snd_pcm_open(&opened, name, stream, SND_PCM_NONBLOCK)
        guard status >= 0, let pcm = opened else {
            throw ALSAError(pcmName: name, step: .open, code: status < 0 ? status : -ENODEV)
        }
        do {
            bufferFrames = try Self.configure(pcm, name: name, format: format, bufferMicroseconds: bufferMicroseconds,
                                              startThreshold: startThreshold)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
        self.name = name
        self.direction = direction
        self.format = format
        self.logger = logger
        handle = pcm
        // Capture from now on, so the first read finds audio; a failure here shows again, and is handled, at the
        // first read.
        if direction == .input { _ = snd_pcm_start(pcm) }
    }

    deinit { close() }

    /// Whether the PCM is still open.
    var isOpen: Bool { handle != nil }

    /// Reads up to `frames` frames into `buffer`, which holds at least `frames` × channels samples.
    func read(into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Transfer {
        guard let handle else { return .failed }
        return outcome(snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames)))
    }

    /// Writes up to `frames` frames from `buffer`, which holds at least `frames` × channels samples.
    func write(_ buffer: UnsafePointer<Int16>, frames: Int) -> Transfer {
        guard let handle else { return .failed }
        return outcome(snd_pcm_writei(handle, buffer, snd_pcm_uframes_t(frames)))
    }

    /// Logs `message` the first time a problem of this `kind` happens on this PCM: a device in trouble repeats it
    /// 50 times a second.
    func report(_ kind: String, _ message: String) {
        guard reported.insert(kind).inserted else { return }
        logger.error(msg: "ALSA \(direction == .input ? "capture" : "playback") \(name): \(message) (logged once)")
    }

    /// Closes the PCM, discarding what playback had not played yet (draining would wait for it). Idempotent.
    func close() {
        guard let handle else { return }
        self.handle = nil
        snd_pcm_drop(handle)
        snd_pcm_close(handle)
    }

    /// What a transfer that returned `count` (frames, or a negative error code) did, recovering from the error.
    /// Internal so tests can feed it the errors a real device gives.
    func outcome(_ count: snd_pcm_sframes_t) -> Transfer {
        count >= 0 ? .frames(count) : recover(Int32(truncatingIfNeeded: count))
    }

    /// Brings the stream back after the negative error `code`, without waiting. `snd_pcm_recover` handles xruns and
    /// interrupted calls, but for a suspended device it retries the resume every second until it succeeds, which
    /// would stall the loop: that case resumes once here and tries again at the next transfer.
    private func recover(_ code: Int32) -> Transfer {
        guard let handle else { return .failed }
        switch code {
        case -EAGAIN:
            return .wouldBlock
        case -EPIPE, -EINTR:
            if code == -EPIPE {
                report("xrun", "\(direction == .input ? "overrun" : "underrun"), restarting the stream")
            }
            let status = snd_pcm_recover(handle, code, 1)
            return status < 0 ? failed(status) : restarted(handle)
        case -ESTRPIPE:
            report("suspend", "the device was suspended, resuming")
            let resumed = snd_pcm_resume(handle)
            if resumed == -EAGAIN { return .wouldBlock }
            if resumed >= 0 { return .recovered }
            // A device that cannot resume is prepared afresh.
            let status = snd_pcm_prepare(handle)
            return status < 0 ? failed(status) : restarted(handle)
        default:
            return failed(code)
        }
    }

    /// A prepared capture stream is started again (a playback stream starts by itself at its threshold).
    private func restarted(_ handle: OpaquePointer) -> Transfer {
        if direction == .input { _ = snd_pcm_start(handle) }
        return .recovered
    }

    private func failed(_ code: Int32) -> Transfer {
        report("error \(code)", "\(ALSAError.text(code)); \(direction == .input ? "sending silence" : "dropping audio") while it lasts")
        return .failed
    }

    private static func configure(_ pcm: OpaquePointer, name: String, format: AudioFormat, bufferMicroseconds: UInt32,
                                  startThreshold: Int) throws(ALSAError) -> Int {
        func check(_ status: Int32) throws(ALSAError) {
            if status < 0 { throw ALSAError(pcmName: name, step: .configure, code: status) }
        }
        // Soft resampling on: a `plughw:` device converts the session's rate and channels to what the card has.
        try check(snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
                                     UInt32(clamping: format.channels), UInt32(clamping: format.sampleRate), 1,
                                     bufferMicroseconds))
        var buffer: snd_pcm_uframes_t = 0
        var period: snd_pcm_uframes_t = 0
        try check(snd_pcm_get_params(pcm, &buffer, &period))
        // snd_pcm_set_params starts playback only once the whole buffer is queued, which leaves no room for the
        // session's timer running a little early or for the two clocks drifting apart.
        var software: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&software))
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(pcm, software))
        let threshold = max(1, min(startThreshold, Int(buffer)))
        try check(snd_pcm_sw_params_set_start_threshold(pcm, software, snd_pcm_uframes_t(threshold)))
        try check(snd_pcm_sw_params(pcm, software))
        return Int(buffer)
    }
}
