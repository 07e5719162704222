/// The pixels of a ``VideoFrame``.
///
/// The Chime SDK for iOS has one concrete buffer, `VideoFramePixelBuffer` over an Apple `CVPixelBuffer`, which does
/// not exist on Linux. Carillon's concrete buffer is ``VideoFrameI420Buffer`` (planar YUV 4:2:0, the shape of the
/// Chime SDK for Android's buffer of that name): the sources Carillon provides produce it, the session sends it and
/// remote video arrives in it. A buffer of another type is not sent (see `startLocalVideo(source:)`).
///
/// Buffers travel between threads with their frames, hence `Sendable`: make an implementation immutable.
public protocol VideoFrameBuffer: AnyObject, Sendable {
    /// Width of the picture in pixels.
    func width() -> Int
    /// Height of the picture in pixels.
    func height() -> Int
}
