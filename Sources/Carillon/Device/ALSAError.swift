import CCarillonALSA

/// Why an ALSA PCM could not be opened or set up for a session: the PCM, the step that failed and libasound's own
/// explanation (`snd_strerror`).
///
/// Thrown only when opening; once open, ALSA errors are logged and recovered from, never thrown. A plain value.
struct ALSAError: Error, Equatable, CustomStringConvertible {
    /// The step of opening that failed.
    enum Step: String, Sendable {
        /// `snd_pcm_open`: no such PCM, the device is busy or gone, no permission.
        case open
        /// Setting the session's format, buffer and start threshold: the device cannot take them.
        case configure
    }

    /// The ALSA name that was opened, for example `plughw:1,0` or `null`.
    let pcmName: String
    /// What failed.
    let step: Step
    /// The negative errno value libasound returned.
    let code: Int32
    /// `snd_strerror(code)`.
    let message: String

    init(pcmName: String, step: Step, code: Int32) {
        self.pcmName = pcmName
        self.step = step
        self.code = code
        message = ALSAError.text(code)
    }

    /// libasound's description of a negative error code.
    static func text(_ code: Int32) -> String {
        snd_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    var description: String { "ALSA PCM \(pcmName): cannot \(step.rawValue): \(message)" }
}
