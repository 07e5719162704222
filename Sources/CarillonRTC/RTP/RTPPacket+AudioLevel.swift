extension RTPPacket {
    /// The RFC 6464 level (0 loudest, 127 silence) the packet carries in the `ssrc-audio-level` extension negotiated
    /// as `extensionId`; nil without that extension (or without a negotiated id).
    public func audioLevel(extensionId: UInt8?) -> UInt8? {
        guard let extensionId, let value = extensionBytes(id: extensionId) else { return nil }
        return RTPHeaderExtensionValue.audioLevel(value)?.level
    }
}
