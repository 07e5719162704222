import CarillonRTC

/// The first packets of a received video stream, kept as `PeerConnection` handed them up (decrypted, before RTX
/// unwrapping and frame assembly), for making test fixtures from another stack's real output.
///
/// It keeps packets from the first one until `frames` frames have ended (packets with the marker bit), so a capture
/// that starts with the sender's first key frame holds that key frame and `frames - 1` frames after it.
struct VideoPacketCapture: Sendable {
    /// Frames to keep.
    let frames: Int
    /// The packets kept, serialized.
    private(set) var packets: [[UInt8]] = []
    private var framesEnded = 0

    /// Creates a capture of `frames` frames.
    init(frames: Int) {
        self.frames = frames
    }

    /// Keeps `packet` if the capture is not full yet.
    mutating func record(_ packet: RTPPacket) {
        guard framesEnded < frames else { return }
        packets.append(packet.serialized())
        if packet.marker { framesEnded += 1 }
    }

    /// The capture as text: one packet a line, in lowercase hex.
    var hexLines: String {
        packets.map { packet in packet.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined() + "\n" }.joined()
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
