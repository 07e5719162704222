import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@Suite struct VP8PayloadTests {
    @Test func everyFieldCombinationRoundTrips() throws {
        for picture: UInt16? in [nil, 0x55, 0x1234] {
            for long in [true, false] {
                for tl0: UInt8? in [nil, 200] {
                    for tid: UInt8? in (tl0 == nil ? [nil, 2] : [1]) {
                        for key: UInt8? in [nil, 17] {
                            let written = VP8PayloadDescriptor(
                                nonReference: true, startOfPartition: true, partitionIndex: 3, pictureID: picture,
                                hasLongPictureID: long, tl0PictureIndex: tl0, temporalLayer: tid, layerSync: tid != nil,
                                keyIndex: key)
                            var bytes: [UInt8] = []
                            written.write(to: &bytes)
                            #expect(bytes.count == written.length)
                            bytes.append(0xAB)
                            let read = try VP8PayloadDescriptor(parsing: bytes[...])
                            #expect(read == written)
                            #expect(read.pictureID == picture.map { long ? $0 : $0 & 0x7F })
                            #expect(read.tl0PictureIndex == tl0 && read.temporalLayer == tid && read.keyIndex == key)
                        }
                    }
                }
            }
        }
    }

    @Test func parsesRFC7741LayoutsAtTheirOffsets() throws {
        // X=1 S=1; I L T K; 15-bit PictureID 0x1234; TL0PICIDX 7; TID 2, Y, KEYIDX 5; then the VP8 frame tag.
        let bytes: [UInt8] = [0x90, 0xF0, 0x92, 0x34, 0x07, 0b1010_0101, 0x00]
        let descriptor = try VP8PayloadDescriptor(parsing: bytes[...])
        #expect(descriptor.isStartOfFrame && !descriptor.nonReference)
        #expect(descriptor.pictureID == 0x1234 && descriptor.hasLongPictureID)
        #expect(descriptor.tl0PictureIndex == 7 && descriptor.temporalLayer == 2 && descriptor.layerSync)
        #expect(descriptor.keyIndex == 5)
        #expect(descriptor.length == 6)
        #expect(descriptor.pictureIDOffset == 2 && descriptor.tl0PictureIndexOffset == 4)
        #expect(descriptor.temporalAndKeyOffset == 5)
        // A minimal descriptor: one byte, continuation of partition 1.
        let minimal = try VP8PayloadDescriptor(parsing: [0x01, 0xFF][...])
        #expect(minimal.length == 1 && !minimal.isStartOfFrame && minimal.partitionIndex == 1)
        #expect(minimal.pictureID == nil)
    }

    @Test func malformedDescriptorsAreTypedErrors() {
        #expect(throws: VP8PayloadError.truncated) { try VP8PayloadDescriptor(parsing: [0x90][...]) }
        #expect(throws: VP8PayloadError.truncated) { try VP8PayloadDescriptor(parsing: [0x90, 0x80, 0x92][...]) }
        // Descriptor complete but no VP8 data after it.
        #expect(throws: VP8PayloadError.truncated) { try VP8PayloadDescriptor(parsing: [0x90, 0x80, 0x92, 0x34][...]) }
        #expect(throws: VP8PayloadError.tl0WithoutTemporalLayer) {
            try VP8PayloadDescriptor(parsing: [0x90, 0x40, 0x07, 0x00][...])
        }
    }

    @Test func keyFrameHeaderGivesTheSize() {
        // Frame tag with P = 0, start code, 640 x 360 little-endian with zero scaling bits.
        let key: [UInt8] = [0x10, 0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0x68, 0x01]
        #expect(VP8PayloadDescriptor.isKeyFrame(payload: key[...], descriptorLength: 1))
        let size = VP8PayloadDescriptor.keyFrameSize(payload: key[...], descriptorLength: 1)
        #expect(size?.width == 640 && size?.height == 360)
        var delta = key
        delta[1] |= 0x01
        #expect(!VP8PayloadDescriptor.isKeyFrame(payload: delta[...], descriptorLength: 1))
        #expect(VP8PayloadDescriptor.keyFrameSize(payload: delta[...], descriptorLength: 1) == nil)
    }

    @Test func packetizerSplitsEvenlyAndNumbersPictures() throws {
        var packetizer = VP8Packetizer(maximumPayloadSize: 1_000, firstPictureID: 0x7FFF)
        let frame = (0..<2_500).map { UInt8(truncatingIfNeeded: $0) }
        let payloads = packetizer.payloads(for: frame[...])
        #expect(payloads.map(\.count) == [838, 837, 837])
        #expect(payloads.allSatisfy { $0.count <= 1_000 })
        let descriptors = try payloads.map { try VP8PayloadDescriptor(parsing: $0[...]) }
        #expect(descriptors.map(\.isStartOfFrame) == [true, false, false])
        #expect(descriptors.allSatisfy { $0.pictureID == 0x7FFF && $0.hasLongPictureID })
        #expect(Array(payloads.map { $0.dropFirst(4) }.joined()) == frame)
        // The PictureID wraps at 15 bits.
        let next = packetizer.payloads(for: [1, 2, 3][...], nonReference: true)
        let descriptor = try VP8PayloadDescriptor(parsing: next[0][...])
        #expect(next.count == 1 && descriptor.pictureID == 0 && descriptor.nonReference)
        #expect(packetizer.payloads(for: [][...]).isEmpty)
    }
}
