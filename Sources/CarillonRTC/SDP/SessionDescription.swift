/// A session description (RFC 8866) as WebRTC uses it (JSEP, RFC 9429; Unified Plan, BUNDLE).
///
/// `init(parsing:)` is tolerant: it accepts LF or CRLF, trailing whitespace, attributes in any order and unknown lines
/// and attributes, which it keeps so that serialising gives them back. It is strict where a mistake would matter:
/// `v=0` first, `o=` present, the `m=` grammar, numeric ranges, candidates, rtpmap, extmap, rid and simulcast syntax.
/// `serialized` writes lines in the order browsers write them, with CRLF endings; parsing it gives an equal value.
public struct SessionDescription: Sendable, Equatable, Hashable {
    /// The `o=` line.
    public var origin: SDPOrigin
    /// `s=`; `-` when absent or empty.
    public var sessionName: String
    /// Session-level `c=`, nil when absent (browsers put `c=` in each media section).
    public var connection: String?
    /// Session-level `a=ice-lite`.
    public var iceLite: Bool
    /// `a=group:BUNDLE` mids, one array per group line.
    public var bundleGroups: [[String]]
    /// `a=msid-semantic` value, e.g. `WMS` or `WMS *`.
    public var msidSemantic: String?
    /// Session-level `a=fingerprint` (the first; further ones stay in `sessionAttributes`).
    public var fingerprint: DTLSFingerprintLine?
    /// Session-level `a=ice-ufrag`.
    public var iceUsernameFragment: String?
    /// Session-level `a=ice-pwd`.
    public var icePassword: String?
    /// Session-level `a=ice-options` tokens.
    public var iceOptions: [String]
    /// Session-level `a=setup`.
    public var setup: SDPSetupRole?
    /// Media sections in order.
    public var media: [MediaDescription]
    /// Other session-level attributes in order (`extmap-allow-mixed`, non-BUNDLE groups, …).
    public var sessionAttributes: [SDPAttribute]
    /// Session-level lines other than `v=`, `o=`, `s=`, `c=`, `t=` and `a=`, in RFC 8866 order.
    public var otherLines: [SDPLine]

    /// Creates a description.
    public init(origin: SDPOrigin = SDPOrigin(), sessionName: String = "-", connection: String? = nil, iceLite: Bool = false,
                bundleGroups: [[String]] = [], msidSemantic: String? = nil, fingerprint: DTLSFingerprintLine? = nil,
                iceUsernameFragment: String? = nil, icePassword: String? = nil, iceOptions: [String] = [],
                setup: SDPSetupRole? = nil, media: [MediaDescription] = [], sessionAttributes: [SDPAttribute] = [],
                otherLines: [SDPLine] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.iceLite = iceLite
        self.bundleGroups = bundleGroups
        self.msidSemantic = msidSemantic
        self.fingerprint = fingerprint
        self.iceUsernameFragment = iceUsernameFragment
        self.icePassword = icePassword
        self.iceOptions = iceOptions
        self.setup = setup
        self.media = media
        self.sessionAttributes = sessionAttributes
        self.otherLines = otherLines
    }

    /// The media section with this mid.
    public func media(mid: String) -> MediaDescription? { media.first { $0.mid == mid } }

    /// The index of the media section with this mid.
    public func mediaIndex(mid: String) -> Int? { media.firstIndex { $0.mid == mid } }

    /// Whether a `BUNDLE` group lists this mid.
    public func isBundled(mid: String) -> Bool { bundleGroups.contains { $0.contains(mid) } }

    /// The fingerprint that applies to a media section: its own, else the session's.
    public func effectiveFingerprint(of media: MediaDescription) -> DTLSFingerprintLine? { media.fingerprint ?? fingerprint }

    /// The ICE credentials that apply to a media section: its own, else the session's.
    public func effectiveICECredentials(of media: MediaDescription) -> (usernameFragment: String, password: String)? {
        guard let ufrag = media.iceUsernameFragment ?? iceUsernameFragment, let pwd = media.icePassword ?? icePassword else {
            return nil
        }
        return (ufrag, pwd)
    }

    /// The DTLS role that applies to a media section: its own, else the session's.
    public func effectiveSetup(of media: MediaDescription) -> SDPSetupRole? { media.setup ?? setup }
}
