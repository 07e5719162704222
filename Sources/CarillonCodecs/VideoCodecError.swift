import CCarillonVPX

/// Why a VP8 encoder or decoder refused a call.
public enum VideoCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvpx returned an error: its `vpx_codec_err_t` code, `vpx_codec_error` text and, when libvpx has one, the
    /// `vpx_codec_error_detail` text (e.g. code 7 "Corrupt frame", detail "Truncated packet or corrupt partition").
    case library(code: UInt32, message: String, detail: String?)
    /// A setting outside its range, for example a bitrate of 0 or a size above 16383.
    case badArgument(String)
    /// The image handed to the encoder is not the size it is configured for; call
    /// ``VP8Encoder/setResolution(width:height:)`` first.
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// The decoder got an inter frame while it has no valid reference: before the first keyframe or after a frame
    /// that failed. The receiver should ask for a keyframe (RTCP PLI) and drop frames until one arrives.
    case keyframeRequired
    /// The frame has no bytes.
    case emptyFrame
    /// libvpx decoded the frame but flagged it corrupt (its data ran out or a reference was broken).
    case corruptFrame
    /// libvpx's output could not be copied into an ``I420Image`` (a size it should never produce).
    case image(I420ImageError)

    /// Whether the bytes themselves were bad (as opposed to a bad call): a receiver drops the frame, asks for a
    /// keyframe and carries on.
    public var isCorruptData: Bool {
        switch self {
        case .library(let code, _, _):
            code == VPX_CODEC_CORRUPT_FRAME.rawValue || code == VPX_CODEC_UNSUP_BITSTREAM.rawValue
                || code == VPX_CODEC_UNSUP_FEATURE.rawValue
        case .corruptFrame, .emptyFrame, .keyframeRequired: true
        case .badArgument, .sizeMismatch, .image: false
        }
    }

    public var description: String {
        switch self {
        case .library(let code, let message, let detail):
            "libvpx error \(code): \(message)" + (detail.map { " (\($0))" } ?? "")
        case .badArgument(let reason): "bad argument: \(reason)"
        case .sizeMismatch(let expectedWidth, let expectedHeight, let width, let height):
            "encoder is configured for \(expectedWidth)x\(expectedHeight), got a \(width)x\(height) image"
        case .keyframeRequired: "VP8 decoder needs a keyframe"
        case .emptyFrame: "empty VP8 frame"
        case .corruptFrame: "VP8 frame decoded as corrupt"
        case .image(let error): "decoded picture: \(error)"
        }
    }

    /// The error for a failed libvpx call on `context` (or on no context, for calls made before one exists).
    init(status: vpx_codec_err_t, context: UnsafeMutablePointer<vpx_codec_ctx_t>?) {
        let message: String
        var detail: String?
        if let context {
            message = vpx_codec_error(context).map { String(cString: $0) } ?? "unknown error"
            detail = vpx_codec_error_detail(context).map { String(cString: $0) }
        } else {
            message = vpx_codec_err_to_string(status).map { String(cString: $0) } ?? "unknown error"
        }
        self = .library(code: status.rawValue, message: message, detail: detail)
    }

    /// Throws the library error unless `status` is `VPX_CODEC_OK`.
    static func check(_ status: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) throws(VideoCodecError) {
        guard status == VPX_CODEC_OK else { throw VideoCodecError(status: status, context: context) }
    }
}
