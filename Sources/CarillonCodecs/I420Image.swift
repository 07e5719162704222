import CCarillonYUV

/// A picture in planar YUV 4:2:0 (I420): a full-size luma plane Y, then the chroma planes U (Cb) and V (Cr) at half
/// the width and half the height, rounded up, so odd sizes keep their last column and row (chroma is (w+1)/2 by
/// (h+1)/2). Samples are 8-bit; the codecs and converters here use BT.601 studio range (Y 16-235, U/V 16-240).
///
/// The three planes live in one contiguous `[UInt8]` (``storage``): Y rows of ``strideY`` bytes, then U rows and then
/// V rows of ``strideUV`` bytes each. Strides are at least the plane widths; images made here use exactly the plane
/// widths unless asked otherwise. This is the codec-level buffer: encoders read it, decoders and converters produce
/// it, and the SDK's frame buffers wrap it.
///
/// A value type with copy-on-write storage: copying an image is free until one copy is written to, then that copy
/// pays one allocation and memcpy of about 1.5 bytes per pixel (138 KB at 320x180, 1.4 MB at 1280x720). Share it
/// freely between threads.
public struct I420Image: Sendable {
    /// The largest width or height accepted (VP8 itself stops at 16 383).
    public static let maximumDimension = 16_384

    /// Width of the picture (and of the luma plane) in pixels.
    public let width: Int
    /// Height of the picture (and of the luma plane) in pixels.
    public let height: Int
    /// Bytes from one luma row to the next, at least ``width``.
    public let strideY: Int
    /// Bytes from one chroma row to the next in both U and V, at least ``chromaWidth``.
    public let strideUV: Int
    /// Y, U and V planes one after the other (see ``yRange``, ``uRange``, ``vRange``).
    public private(set) var storage: [UInt8]

    /// Width of each chroma plane: `(width + 1) / 2`.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Height of each chroma plane: `(height + 1) / 2`.
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Where the luma plane is in ``storage``.
    public var yRange: Range<Int> { 0..<strideY * height }
    /// Where the U (Cb) plane is in ``storage``.
    public var uRange: Range<Int> { yRange.upperBound..<yRange.upperBound + strideUV * chromaHeight }
    /// Where the V (Cr) plane is in ``storage``.
    public var vRange: Range<Int> { uRange.upperBound..<uRange.upperBound + strideUV * chromaHeight }

    /// A picture whose every byte is zero (Y = U = V = 0, a dark green; see ``init(width:height:y:u:v:)`` for black).
    /// Strides default to the plane widths. Cost: one zeroed allocation.
    public init(width: Int, height: Int, strideY: Int? = nil, strideUV: Int? = nil) throws(I420ImageError) {
        let (strideY, strideUV, count) = try Self.layout(width: width, height: height, strideY: strideY, strideUV: strideUV)
        self.init(unchecked: width, height, strideY, strideUV, [UInt8](repeating: 0, count: count))
    }

    /// A picture of one flat colour, for example `y: 16, u: 128, v: 128` for black in studio range.
    public init(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) throws(I420ImageError) {
        try self.init(width: width, height: height)
        fill(y: y, u: u, v: v)
    }

    /// A picture over an existing contiguous buffer laid out as described on the type (no copy). `storage` may be
    /// longer than needed; the excess is kept and ignored.
    public init(width: Int, height: Int, storage: [UInt8], strideY: Int? = nil, strideUV: Int? = nil) throws(I420ImageError) {
        let (strideY, strideUV, count) = try Self.layout(width: width, height: height, strideY: strideY, strideUV: strideUV)
        guard storage.count >= count else { throw .bufferTooSmall(plane: "I420 storage", count: storage.count, needed: count) }
        self.init(unchecked: width, height, strideY, strideUV, storage)
    }

    /// A picture copied from three separate planes, each with its own stride (as a capture API or another library
    /// hands them over). The copy has strides equal to the plane widths. Cost: one allocation and a copy of the
    /// visible rows (libyuv `I420Copy`).
    public init(
        width: Int, height: Int,
        y: [UInt8], strideY: Int,
        u: [UInt8], strideU: Int,
        v: [UInt8], strideV: Int
    ) throws(I420ImageError) {
        try self.init(width: width, height: height)
        let chromaWidth = self.chromaWidth, chromaHeight = self.chromaHeight
        try Self.check(plane: "Y", count: y.count, stride: strideY, rowBytes: width, rows: height)
        try Self.check(plane: "U", count: u.count, stride: strideU, rowBytes: chromaWidth, rows: chromaHeight)
        try Self.check(plane: "V", count: v.count, stride: strideV, rowBytes: chromaWidth, rows: chromaHeight)
        let (ownStrideY, ownStrideUV) = (self.strideY, self.strideUV)
        let status = withUnsafeMutablePlanes { dy, du, dv in
            y.withUnsafeBufferPointer { sy in
                u.withUnsafeBufferPointer { su in
                    v.withUnsafeBufferPointer { sv in
                        I420Copy(sy.baseAddress, Int32(strideY), su.baseAddress, Int32(strideU), sv.baseAddress, Int32(strideV),
                                 dy.baseAddress, Int32(ownStrideY), du.baseAddress, Int32(ownStrideUV),
                                 dv.baseAddress, Int32(ownStrideUV), Int32(width), Int32(height))
                    }
                }
            }
        }
        guard status == 0 else { throw .conversionFailed(function: "I420Copy", status: status) }
    }

    init(unchecked width: Int, _ height: Int, _ strideY: Int, _ strideUV: Int, _ storage: [UInt8]) {
        self.width = width
        self.height = height
        self.strideY = strideY
        self.strideUV = strideUV
        self.storage = storage
    }

    /// The luma of pixel (x, y) and the chroma pair of the 2x2 block that holds it. Traps outside the picture.
    public func pixel(x: Int, y: Int) -> (y: UInt8, u: UInt8, v: UInt8) {
        precondition((0..<width).contains(x) && (0..<height).contains(y), "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let chroma = (y / 2) * strideUV + x / 2
        return (storage[y * strideY + x], storage[uRange.lowerBound + chroma], storage[vRange.lowerBound + chroma])
    }

    /// Sets every visible pixel to one colour (padding bytes beyond the widths are left alone).
    public mutating func fill(y: UInt8, u: UInt8, v: UInt8) {
        let width = self.width, height = self.height, chromaWidth = self.chromaWidth, chromaHeight = self.chromaHeight
        let strideY = self.strideY, strideUV = self.strideUV
        withUnsafeMutablePlanes { planeY, planeU, planeV in
            for row in 0..<height { planeY[(row * strideY)..<(row * strideY + width)].update(repeating: y) }
            for row in 0..<chromaHeight {
                planeU[(row * strideUV)..<(row * strideUV + chromaWidth)].update(repeating: u)
                planeV[(row * strideUV)..<(row * strideUV + chromaWidth)].update(repeating: v)
            }
        }
    }

    /// Calls `body` with read-only views of the Y, U and V planes (each starting at its first row, rows ``strideY`` or
    /// ``strideUV`` apart). The pointers are valid only inside `body`.
    public func withUnsafePlanes<R, E: Error>(
        _ body: (_ y: UnsafeBufferPointer<UInt8>, _ u: UnsafeBufferPointer<UInt8>, _ v: UnsafeBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let y = yRange, u = uRange, v = vRange
        return try storage.withUnsafeBufferPointer { (all) throws(E) -> R in
            try body(UnsafeBufferPointer(rebasing: all[y]), UnsafeBufferPointer(rebasing: all[u]), UnsafeBufferPointer(rebasing: all[v]))
        }
    }

    /// Calls `body` with writable views of the Y, U and V planes, after making the storage unique (copy-on-write).
    /// The pointers are valid only inside `body`.
    public mutating func withUnsafeMutablePlanes<R, E: Error>(
        _ body: (_ y: UnsafeMutableBufferPointer<UInt8>, _ u: UnsafeMutableBufferPointer<UInt8>, _ v: UnsafeMutableBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let y = yRange, u = uRange, v = vRange
        return try storage.withUnsafeMutableBufferPointer { (all) throws(E) -> R in
            try body(UnsafeMutableBufferPointer(rebasing: all[y]), UnsafeMutableBufferPointer(rebasing: all[u]),
                     UnsafeMutableBufferPointer(rebasing: all[v]))
        }
    }

    /// Checks a size and optional strides and returns the strides to use and the bytes the three planes need.
    static func layout(width: Int, height: Int, strideY: Int?, strideUV: Int?) throws(I420ImageError) -> (Int, Int, Int) {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw .invalidSize(width: width, height: height)
        }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let strideY = strideY ?? width, strideUV = strideUV ?? chromaWidth
        // A stride more than 4 times the maximum row could only come from a bad caller; it would also overflow Int32.
        guard (width...4 * maximumDimension).contains(strideY) else { throw .invalidStride(plane: "Y", stride: strideY, minimum: width) }
        guard (chromaWidth...4 * maximumDimension).contains(strideUV) else {
            throw .invalidStride(plane: "UV", stride: strideUV, minimum: chromaWidth)
        }
        return (strideY, strideUV, strideY * height + 2 * strideUV * chromaHeight)
    }

    /// Throws unless a plane of `rows` rows of `rowBytes` bytes, `stride` apart, fits in `count` bytes.
    static func check(plane: String, count: Int, stride: Int, rowBytes: Int, rows: Int) throws(I420ImageError) {
        // Packed sources have up to 4 bytes a pixel; anything beyond 4 times that is a bad caller (and overflows Int32).
        guard (rowBytes...16 * maximumDimension).contains(stride) else { throw .invalidStride(plane: plane, stride: stride, minimum: rowBytes) }
        let needed = stride * (rows - 1) + rowBytes
        guard count >= needed else { throw .bufferTooSmall(plane: plane, count: count, needed: needed) }
    }
}

extension I420Image: Equatable {
    /// Two images are equal when they have the same size and the same visible pixels; strides and padding bytes do
    /// not count.
    public static func == (lhs: I420Image, rhs: I420Image) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        if lhs.strideY == rhs.strideY, lhs.strideUV == rhs.strideUV, lhs.storage == rhs.storage { return true }
        return lhs.withUnsafePlanes { ly, lu, lv in
            rhs.withUnsafePlanes { ry, ru, rv in
                func same(_ l: UnsafeBufferPointer<UInt8>, _ ls: Int, _ r: UnsafeBufferPointer<UInt8>, _ rs: Int, _ w: Int, _ h: Int) -> Bool {
                    (0..<h).allSatisfy { row in l[(row * ls)..<(row * ls + w)].elementsEqual(r[(row * rs)..<(row * rs + w)]) }
                }
                return same(ly, lhs.strideY, ry, rhs.strideY, lhs.width, lhs.height)
                    && same(lu, lhs.strideUV, ru, rhs.strideUV, lhs.chromaWidth, lhs.chromaHeight)
                    && same(lv, lhs.strideUV, rv, rhs.strideUV, lhs.chromaWidth, lhs.chromaHeight)
            }
        }
    }
}
