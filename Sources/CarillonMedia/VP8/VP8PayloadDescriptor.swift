import CarillonCodecs

/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 §4.2), read without copying.
///
/// ```
/// |X|R|N|S|R| PID |   X: extension byte follows, N: non-reference frame, S: start of partition
/// |I|L|T|K| RSV   |   (when X) I: PictureID, L: TL0PICIDX, T: TID/Y, K: KEYIDX
/// |M| PictureID   |   (when I) M: 15-bit PictureID, one more byte follows
/// | TL0PICIDX     |   (when L)
/// |TID|Y| KEYIDX  |   (when T or K)
/// ```
///
/// The offsets of the PictureID, TL0PICIDX and TID/KEYIDX bytes are kept so a forwarder can rewrite them in place
/// (``VP8StreamRewriter``). Parsing is O(1) and allocates nothing.
public struct VP8PayloadDescriptor: Sendable, Equatable {
    /// N: the frame is not used as a reference by later frames, so a receiver may skip it.
    public var nonReference: Bool
    /// S: this packet starts a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition index, 0-7.
    public var partitionIndex: UInt8
    /// The picture's PictureID, 7 or 15 bits, if present.
    public var pictureID: UInt16?
    /// Whether the PictureID uses the 15-bit (two-byte) form.
    public var hasLongPictureID: Bool
    /// TL0PICIDX: the running index of base-layer pictures, if present.
    public var tl0PictureIndex: UInt8?
    /// TID: the temporal layer, if present.
    public var temporalLayer: UInt8?
    /// Y: the frame depends only on the base layer (a switching point up to its temporal layer).
    public var layerSync: Bool
    /// KEYIDX: the running index of key frames, if present.
    public var keyIndex: UInt8?
    /// The descriptor's length in bytes: where the VP8 payload starts.
    public let length: Int
    /// Where the PictureID bytes start, relative to the descriptor.
    public let pictureIDOffset: Int?
    /// Where the TL0PICIDX byte is, relative to the descriptor.
    public let tl0PictureIndexOffset: Int?
    /// Where the TID/Y/KEYIDX byte is, relative to the descriptor.
    public let temporalAndKeyOffset: Int?

    /// Whether this packet starts a frame (S = 1 and PID = 0).
    public var isStartOfFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Creates a descriptor to write; `length` and the offsets follow from the fields present.
    public init(nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0,
                pictureID: UInt16? = nil, hasLongPictureID: Bool = true, tl0PictureIndex: UInt8? = nil,
                temporalLayer: UInt8? = nil, layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex & 0x07
        self.pictureID = pictureID.map { hasLongPictureID ? $0 & 0x7FFF : $0 & 0x7F }
        self.hasLongPictureID = pictureID != nil && hasLongPictureID
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer.map { $0 & 0x03 }
        self.layerSync = layerSync
        self.keyIndex = keyIndex.map { $0 & 0x1F }
        let extended = pictureID != nil || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
        var offset = extended ? 2 : 1
        pictureIDOffset = pictureID != nil ? offset : nil
        if pictureID != nil { offset += hasLongPictureID ? 2 : 1 }
        tl0PictureIndexOffset = tl0PictureIndex != nil ? offset : nil
        if tl0PictureIndex != nil { offset += 1 }
        temporalAndKeyOffset = temporalLayer != nil || keyIndex != nil ? offset : nil
        if temporalLayer != nil || keyIndex != nil { offset += 1 }
        length = offset
    }

    /// Reads the descriptor at the start of `payload`, which must also hold at least one byte of VP8 data.
    public init(parsing payload: ArraySlice<UInt8>) throws(VP8PayloadError) {
        let base = payload.startIndex
        guard payload.count >= 2 else { throw .truncated }
        let first = payload[base]
        nonReference = first & 0x20 != 0
        startOfPartition = first & 0x10 != 0
        partitionIndex = first & 0x07
        var offset = 1
        var pictureID: UInt16?, longPictureID = false, tl0: UInt8?, tid: UInt8?, sync = false, key: UInt8?
        var pictureAt: Int?, tl0At: Int?, tidAt: Int?
        if first & 0x80 != 0 {
            let flags = payload[base + 1]
            offset = 2
            let hasPicture = flags & 0x80 != 0, hasTL0 = flags & 0x40 != 0
            let hasTID = flags & 0x20 != 0, hasKey = flags & 0x10 != 0
            // L without T is invalid (RFC 7741 §4.2): a sender that does it cannot be followed consistently.
            if hasTL0 && !hasTID { throw .tl0WithoutTemporalLayer }
            if hasPicture {
                guard payload.count > offset else { throw .truncated }
                pictureAt = offset
                let high = payload[base + offset]
                if high & 0x80 != 0 {
                    guard payload.count > offset + 1 else { throw .truncated }
                    pictureID = UInt16(high & 0x7F) << 8 | UInt16(payload[base + offset + 1])
                    longPictureID = true
                    offset += 2
                } else {
                    pictureID = UInt16(high)
                    offset += 1
                }
            }
            if hasTL0 {
                guard payload.count > offset else { throw .truncated }
                tl0At = offset
                tl0 = payload[base + offset]
                offset += 1
            }
            if hasTID || hasKey {
                guard payload.count > offset else { throw .truncated }
                tidAt = offset
                let byte = payload[base + offset]
                if hasTID {
                    tid = byte >> 6
                    sync = byte & 0x20 != 0
                }
                if hasKey { key = byte & 0x1F }
                offset += 1
            }
        }
        guard payload.count > offset else { throw .truncated }
        self.pictureID = pictureID
        hasLongPictureID = longPictureID
        tl0PictureIndex = tl0
        temporalLayer = tid
        layerSync = sync
        keyIndex = key
        length = offset
        pictureIDOffset = pictureAt
        tl0PictureIndexOffset = tl0At
        temporalAndKeyOffset = tidAt
    }

    /// Appends the descriptor's bytes to `bytes`.
    public func write(to bytes: inout [UInt8]) {
        let extended = pictureIDOffset != nil || tl0PictureIndexOffset != nil || temporalAndKeyOffset != nil
        bytes.append((extended ? 0x80 : 0) | (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | partitionIndex)
        guard extended else { return }
        bytes.append((pictureID != nil ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0)
                     | (temporalLayer != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0))
        if let pictureID {
            if hasLongPictureID {
                bytes.append(0x80 | UInt8(pictureID >> 8))
                bytes.append(UInt8(truncatingIfNeeded: pictureID))
            } else {
                bytes.append(UInt8(pictureID & 0x7F))
            }
        }
        if let tl0PictureIndex { bytes.append(tl0PictureIndex) }
        if temporalLayer != nil || keyIndex != nil {
            bytes.append((temporalLayer ?? 0) << 6 | (layerSync ? 0x20 : 0) | (keyIndex ?? 0))
        }
    }

    /// Whether a frame's first packet (S = 1, PID = 0) carries a key frame: the P bit of the VP8 frame tag is 0.
    public static func isKeyFrame(payload: ArraySlice<UInt8>, descriptorLength: Int) -> Bool {
        let tag = payload.startIndex + descriptorLength
        return tag < payload.endIndex && payload[tag] & 0x01 == 0
    }

    /// The picture size a key frame's header announces (``VP8FrameHeader`` read in place after the descriptor), nil
    /// when `payload` does not start a key frame.
    public static func keyFrameSize(payload: ArraySlice<UInt8>, descriptorLength: Int) -> (width: Int, height: Int)? {
        let tag = payload.startIndex + descriptorLength
        guard tag <= payload.endIndex, let header = VP8FrameHeader(payload[tag...]), header.isKeyframe,
              let width = header.width, let height = header.height
        else { return nil }
        return (width, height)
    }
}
