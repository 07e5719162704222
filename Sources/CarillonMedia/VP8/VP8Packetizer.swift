/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4), each starting with a payload descriptor that carries a
/// 15-bit PictureID, increasing by one per frame as libwebrtc's receivers expect.
///
/// Fragments are of equal size (within one byte) so no packet of a frame is much smaller than the others. The
/// caller puts each payload in an RTP packet with the frame's timestamp, consecutive sequence numbers and the marker
/// bit on the last one. Sans-IO value type; one array per payload.
public struct VP8Packetizer: Sendable {
    /// The largest payload (descriptor included) a packet may carry.
    public let maximumPayloadSize: Int
    /// The PictureID the next frame gets.
    public private(set) var nextPictureID: UInt16

    private static let descriptorLength = 4  // X, I/L/T/K, two PictureID bytes

    /// Creates a packetizer. `maximumPayloadSize` must leave room for the 4-byte descriptor and one data byte.
    public init(maximumPayloadSize: Int = 1_150, firstPictureID: UInt16 = .random(in: 0...0x7FFF)) {
        precondition(maximumPayloadSize > Self.descriptorLength, "VP8 payloads need room for the descriptor")
        self.maximumPayloadSize = maximumPayloadSize
        self.nextPictureID = firstPictureID & 0x7FFF
    }

    /// The payloads of one encoded frame, in order; empty for an empty frame. `nonReference` marks a frame no later
    /// frame refers to (a receiver may drop it without losing sync).
    public mutating func payloads(for frame: ArraySlice<UInt8>, nonReference: Bool = false) -> [[UInt8]] {
        guard !frame.isEmpty else { return [] }
        let room = maximumPayloadSize - Self.descriptorLength
        let count = (frame.count + room - 1) / room
        let base = frame.count / count, larger = frame.count % count
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(count)
        var start = frame.startIndex
        for index in 0..<count {
            let size = base + (index < larger ? 1 : 0)
            var payload: [UInt8] = []
            payload.reserveCapacity(Self.descriptorLength + size)
            VP8PayloadDescriptor(nonReference: nonReference, startOfPartition: index == 0, pictureID: nextPictureID)
                .write(to: &payload)
            payload += frame[start..<(start + size)]
            payloads.append(payload)
            start += size
        }
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
        return payloads
    }
}
