/// One direction of SRTP/SRTCP protection, in place.
///
/// Threading: not thread-safe; one owner (the session's event loop) uses a context.
public protocol SRTPContext: AnyObject {
    /// The profile the context was made for.
    var profile: SRTPProfile { get }
    /// Encrypts and authenticates an RTP packet in place (the array grows by the tag).
    func protectRTP(_ packet: inout [UInt8]) throws(SRTPError)
    /// Verifies and decrypts an SRTP packet in place (the array shrinks to the RTP packet).
    func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError)
    /// Encrypts and authenticates a compound RTCP packet in place.
    func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError)
    /// Verifies and decrypts an SRTCP packet in place.
    func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError)
}
