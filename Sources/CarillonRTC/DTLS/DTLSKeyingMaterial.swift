/// The SRTP master keys and salts a DTLS-SRTP handshake exported (RFC 5764 §4.2), already assigned to directions.
public struct DTLSKeyingMaterial: Sendable, Equatable {
    /// The negotiated SRTP protection profile.
    public let profile: SRTPProfile
    /// Master key this side uses to protect what it sends.
    public let localMasterKey: [UInt8]
    /// Master salt this side uses to protect what it sends.
    public let localMasterSalt: [UInt8]
    /// Master key this side uses to unprotect what it receives.
    public let remoteMasterKey: [UInt8]
    /// Master salt this side uses to unprotect what it receives.
    public let remoteMasterSalt: [UInt8]

    /// Creates keying material from its parts.
    public init(profile: SRTPProfile, localMasterKey: [UInt8], localMasterSalt: [UInt8],
                remoteMasterKey: [UInt8], remoteMasterSalt: [UInt8]) {
        self.profile = profile
        self.localMasterKey = localMasterKey
        self.localMasterSalt = localMasterSalt
        self.remoteMasterKey = remoteMasterKey
        self.remoteMasterSalt = remoteMasterSalt
    }

    /// Splits the exporter output `clientKey | serverKey | clientSalt | serverSalt` for `role`.
    ///
    /// Returns nil when `exported` does not have `2 * (keyLength + saltLength)` bytes for `profile`.
    init?(profile: SRTPProfile, exported: [UInt8], role: DTLSRole) {
        let keyLength = profile.keyLength
        let saltLength = profile.saltLength
        guard exported.count == 2 * (keyLength + saltLength) else { return nil }
        let clientKey = Array(exported[0..<keyLength])
        let serverKey = Array(exported[keyLength..<2 * keyLength])
        let clientSalt = Array(exported[2 * keyLength..<2 * keyLength + saltLength])
        let serverSalt = Array(exported[2 * keyLength + saltLength..<2 * (keyLength + saltLength)])
        switch role {
        case .client:
            self.init(profile: profile, localMasterKey: clientKey, localMasterSalt: clientSalt,
                      remoteMasterKey: serverKey, remoteMasterSalt: serverSalt)
        case .server:
            self.init(profile: profile, localMasterKey: serverKey, localMasterSalt: serverSalt,
                      remoteMasterKey: clientKey, remoteMasterSalt: clientSalt)
        }
    }
}

extension DTLSKeyingMaterial: CustomStringConvertible {
    /// Names the profile only: keys stay out of logs.
    public var description: String { "DTLSKeyingMaterial(\(profile), keys redacted)" }
}
