extension SessionDescription {
    /// Parses SDP text with the default `SDPParsingLimits`.
    public init(parsing text: String) throws(SDPError) {
        try self.init(parsing: text, limits: SDPParsingLimits())
    }

    /// Parses SDP text within the given limits.
    public init(parsing text: String, limits: SDPParsingLimits) throws(SDPError) {
        let byteCount = text.utf8.count
        guard byteCount <= limits.maximumBytes else { throw .tooLarge(bytes: byteCount, limit: limits.maximumBytes) }

        var lines: [SDPSourceLine] = []
        var number = 0
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard raw.count <= limits.maximumLineLength else {
                throw .lineTooLong(number: number, length: raw.count, limit: limits.maximumLineLength)
            }
            var line = Substring(String(Substring(raw)))
            while let last = line.unicodeScalars.last, last == " " || last == "\t" || last == "\r" {
                line = line[..<line.unicodeScalars.index(before: line.unicodeScalars.endIndex)]
            }
            // RFC 8866 allows neither CR nor NUL inside a line; a lone CR would also split the line differently on
            // the next parse.
            if line.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == 0 }) {
                throw SDPSourceLine(number: number, text: line).malformed("CR or NUL inside a line")
            }
            if !line.isEmpty { lines.append(SDPSourceLine(number: number, text: line)) }
        }

        guard let first = lines.first, first.text.utf8.starts(with: "v=".utf8) else { throw .missingVersion }
        let version = SDPText.trimmed(Self.value(of: first))
        guard version == "0" else { throw .unsupportedVersion(SDPText.quoted(version)) }

        self.init(origin: SDPOrigin(sessionId: 0))
        var sawOrigin = false, sawName = false
        var drafts: [MediaDraft] = []
        for line in lines.dropFirst() {
            let utf8 = line.text.utf8
            guard utf8.count >= 2, let letter = utf8.first, Self.isASCIILetter(letter),
                  utf8[utf8.index(after: utf8.startIndex)] == UInt8(ascii: "=") else {
                throw line.malformed("not <letter>=<value>")
            }
            let type = Character(Unicode.Scalar(letter))
            let value = Self.value(of: line)
            if type == "m" {
                guard drafts.count < limits.maximumMediaSections else { throw .tooManyMediaSections(limit: limits.maximumMediaSections) }
                drafts.append(try MediaDraft(mLine: value, line: line))
                continue
            }
            if drafts.isEmpty {
                switch type {
                case "v": throw line.malformed("v= may only be the first line")
                case "o":
                    guard !sawOrigin else { throw line.malformed("second o= line") }
                    origin = try Self.parseOrigin(value, line: line)
                    sawOrigin = true
                case "s":
                    guard !sawName else { throw line.malformed("second s= line") }
                    let name = SDPText.trimmed(value)
                    sessionName = name.isEmpty ? "-" : String(name)
                    sawName = true
                case "t": break  // WebRTC sessions are unbounded; `t=0 0` is always written back.
                case "c" where connection == nil: connection = String(SDPText.trimmed(value))
                case "a": try applySessionAttribute(value, line: line)
                default: otherLines.append(SDPLine(type: type, value: String(value)))
                }
            } else {
                switch type {
                case "v", "o", "s", "t": throw line.malformed("\(type)= belongs to the session section")
                case "c" where drafts[drafts.count - 1].media.connection == nil:
                    drafts[drafts.count - 1].media.connection = String(SDPText.trimmed(value))
                case "a": drafts[drafts.count - 1].attributes.append((line, value))
                default: drafts[drafts.count - 1].media.otherLines.append(SDPLine(type: type, value: String(value)))
                }
            }
        }
        guard sawOrigin else { throw .missingOrigin }
        otherLines = Self.stableSorted(otherLines) { $0.rank(inSession: true) }
        media = []
        media.reserveCapacity(drafts.count)
        for draft in drafts { media.append(try draft.finish(limits: limits)) }
    }

    static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// The text after `<letter>=`.
    static func value(of line: SDPSourceLine) -> Substring {
        line.text[line.text.utf8.index(line.text.utf8.startIndex, offsetBy: 2)...]
    }

    /// Splits an attribute at its first colon.
    static func splitAttribute(_ text: Substring) -> (name: Substring, value: Substring?) {
        guard let (name, value) = SDPText.cut(text, at: ":") else { return (text, nil) }
        return (name, value)
    }

    static func stableSorted<T>(_ items: [T], by rank: (T) -> Int) -> [T] {
        items.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    static func parseOrigin(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPOrigin {
        let fields = SDPText.fields(value)
        guard fields.count == 6 else { throw line.malformed("o= needs 6 fields") }
        guard let id = SDPText.decimal(fields[1], as: UInt64.self), let version = SDPText.decimal(fields[2], as: UInt64.self) else {
            throw line.malformed("o= session id and version must be 64-bit numbers")
        }
        return SDPOrigin(username: String(fields[0]), sessionId: id, sessionVersion: version, networkType: String(fields[3]),
                         addressType: String(fields[4]), address: String(fields[5]))
    }

    static func parseFingerprint(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> DTLSFingerprintLine {
        let (algorithm, digest) = SDPText.firstField(value)
        guard !algorithm.isEmpty, !digest.isEmpty else { throw line.malformed("fingerprint needs a hash name and a value") }
        return DTLSFingerprintLine(algorithm: String(algorithm), value: String(digest))
    }

    static func parseSetup(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPSetupRole {
        guard let role = SDPSetupRole(rawValue: SDPText.trimmed(value).lowercased()) else {
            throw line.malformed("setup must be actpass, active, passive or holdconn")
        }
        return role
    }

    private mutating func applySessionAttribute(_ text: Substring, line: SDPSourceLine) throws(SDPError) {
        let (name, value) = Self.splitAttribute(text)
        func keep() { sessionAttributes.append(SDPAttribute(name: String(name), value: value.map(String.init))) }
        switch (name, value) {
        case ("group", let value?):
            let fields = SDPText.fields(value)
            if fields.first == "BUNDLE" { bundleGroups.append(fields.dropFirst().map(String.init)) } else { keep() }
        case ("ice-lite", nil): iceLite = true
        case ("msid-semantic", let value?) where msidSemantic == nil: msidSemantic = String(SDPText.trimmed(value))
        case ("fingerprint", let value?) where fingerprint == nil: fingerprint = try Self.parseFingerprint(value, line: line)
        case ("ice-ufrag", let value?) where iceUsernameFragment == nil: iceUsernameFragment = String(SDPText.trimmed(value))
        case ("ice-pwd", let value?) where icePassword == nil: icePassword = String(SDPText.trimmed(value))
        case ("ice-options", let value?): iceOptions += SDPText.fields(value).map(String.init)
        case ("setup", let value?) where setup == nil: setup = try Self.parseSetup(value, line: line)
        default: keep()
        }
    }
}

/// A media section being read: its m-line, then its attributes, interpreted once the section is complete (attributes
/// may come in any order, e.g. `a=fmtp` before `a=rtpmap`).
private struct MediaDraft {
    var media: MediaDescription
    var attributes: [(line: SDPSourceLine, text: Substring)] = []

    init(mLine value: Substring, line: SDPSourceLine) throws(SDPError) {
        let fields = SDPText.fields(value)
        guard fields.count >= 4 else { throw line.malformed("m= needs media, port, proto and at least one format") }
        var portText = fields[1]
        var numberOfPorts: UInt16?
        if let (before, after) = SDPText.cut(portText, at: "/") {
            guard let count = SDPText.decimal(after, as: UInt16.self) else {
                throw line.malformed("m= number of ports is not 0-65535")
            }
            numberOfPorts = count
            portText = before
        }
        guard let port = SDPText.decimal(portText, as: UInt16.self) else { throw line.malformed("m= port is not 0-65535") }
        let proto = fields[2]
        let formats = fields[3...]
        if MediaDescription.isRTP(proto: proto) {
            for format in formats { _ = try line.payloadType(format) }
        }
        media = MediaDescription(kind: String(fields[0]), port: port, proto: String(proto), formats: formats.map(String.init),
                                 numberOfPorts: numberOfPorts)
    }

    func finish(limits: SDPParsingLimits) throws(SDPError) -> MediaDescription {
        var media = media
        media.otherLines = SessionDescription.stableSorted(media.otherLines) { $0.rank(inSession: false) }
        let isRTP = media.isRTP
        var sawDirection = false
        var rtpmaps: [UInt8: SDPCodec] = [:]
        var fmtps: [UInt8: [SDPCodec.Parameter]] = [:]
        var feedback: [(payloadType: UInt8?, value: String, line: SDPSourceLine)] = []  // nil payload type: `*`
        var unattached: [(payloadType: UInt8, attribute: SDPAttribute)] = []
        var ssrcIndex: [UInt32: Int] = [:]
        let formatTypes = Set(isRTP ? media.formats.compactMap { UInt8($0) } : [])

        for (line, text) in attributes {
            let (name, value) = SessionDescription.splitAttribute(text)
            let attribute = SDPAttribute(name: String(name), value: value.map(String.init))
            switch (name, value) {
            case ("mid", let value?) where media.mid == nil:
                media.mid = String(SDPText.trimmed(value))
            case ("sendrecv", nil), ("sendonly", nil), ("recvonly", nil), ("inactive", nil):
                if sawDirection {
                    media.otherAttributes.append(attribute)
                } else {
                    media.direction = SDPDirection(rawValue: String(name)) ?? .sendrecv
                    sawDirection = true
                }
            case ("ice-ufrag", let value?) where media.iceUsernameFragment == nil:
                media.iceUsernameFragment = String(SDPText.trimmed(value))
            case ("ice-pwd", let value?) where media.icePassword == nil:
                media.icePassword = String(SDPText.trimmed(value))
            case ("ice-options", let value?):
                media.iceOptions += SDPText.fields(value).map(String.init)
            case ("fingerprint", let value?) where media.fingerprint == nil:
                media.fingerprint = try SessionDescription.parseFingerprint(value, line: line)
            case ("setup", let value?) where media.setup == nil:
                media.setup = try SessionDescription.parseSetup(value, line: line)
            case ("rtcp-mux", nil): media.rtcpMux = true
            case ("rtcp-rsize", nil): media.rtcpReducedSize = true
            case ("end-of-candidates", nil): media.endOfCandidates = true
            case ("candidate", let value?):
                media.candidates.append(try ICECandidate(fields: SDPText.fields(value), lineNumber: line.number))
            case ("extmap", let value?):
                media.extensions.append(try SDPExtension.parse(value, line: line))
            case ("msid", let value?):
                media.msid.append(try SDPMediaStreamID.parse(value, line: line))
            case ("ssrc", let value?):
                let (ssrcText, rest) = SDPText.firstField(value)
                guard let ssrc = SDPText.decimal(ssrcText, as: UInt32.self) else { throw line.malformed("ssrc is not a 32-bit number") }
                let index: Int
                if let known = ssrcIndex[ssrc] {
                    index = known
                } else {
                    index = media.ssrcs.count
                    ssrcIndex[ssrc] = index
                    media.ssrcs.append(SDPSSRC(ssrc: ssrc))
                }
                if !rest.isEmpty {
                    let (attributeName, attributeValue) = SessionDescription.splitAttribute(rest)
                    media.ssrcs[index].attributes.append(SDPAttribute(name: String(attributeName),
                                                                      value: attributeValue.map(String.init)))
                }
            case ("ssrc-group", let value?):
                media.ssrcGroups.append(try SDPSSRCGroup.parse(value, line: line))
            case ("rid", let value?):
                media.rids.append(try SDPRid.parse(value, line: line))
            case ("simulcast", let value?) where media.simulcast == nil:
                media.simulcast = try SDPSimulcast.parse(value, line: line)
            case ("rtpmap", let value?) where isRTP:
                let (typeText, encoding) = SDPText.firstField(value)
                let payloadType = try line.payloadType(typeText)
                let parts = SDPText.split(encoding, at: "/", omittingEmpty: false)
                guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty else {
                    throw line.malformed("rtpmap needs <name>/<clock rate>[/<channels>]")
                }
                guard let clockRate = SDPText.decimal(parts[1], as: UInt32.self) else {
                    throw line.malformed("rtpmap clock rate is not a 32-bit number")
                }
                var channels: UInt8?
                if parts.count == 3 {
                    guard let count = SDPText.decimal(parts[2], as: UInt8.self) else { throw line.malformed("rtpmap channels is not 0-255") }
                    channels = count
                }
                guard rtpmaps[payloadType] == nil else { throw .duplicatePayloadType(number: line.number, payloadType: payloadType) }
                rtpmaps[payloadType] = SDPCodec(payloadType: payloadType, name: String(parts[0]), clockRate: clockRate,
                                                channels: channels)
            case ("fmtp", let value?) where isRTP:
                let (typeText, parameters) = SDPText.firstField(value)
                let payloadType = try line.payloadType(typeText)
                guard formatTypes.contains(payloadType) else { break }  // not offered: ignored
                fmtps[payloadType, default: []] += SDPCodec.parameters(parsing: parameters)
                unattached.append((payloadType, attribute))
            case ("rtcp-fb", let value?) where isRTP:
                let (typeText, rest) = SDPText.firstField(value)
                let text = SDPText.fields(rest).joined(separator: " ")
                guard !text.isEmpty else { break }
                if typeText == "*" {
                    feedback.append((nil, text, line))
                } else {
                    let payloadType = try line.payloadType(typeText)
                    guard formatTypes.contains(payloadType) else { break }  // not offered: ignored
                    feedback.append((payloadType, text, line))
                    unattached.append((payloadType, attribute))
                }
            default:
                media.otherAttributes.append(attribute)
            }
        }

        if isRTP {
            var seen = Set<UInt8>()
            for format in media.formats {
                guard let payloadType = UInt8(format), seen.insert(payloadType).inserted else { continue }
                guard var codec = rtpmaps[payloadType] ?? SDPCodec.staticCodec(payloadType) else { continue }
                codec.parameters = fmtps[payloadType] ?? []
                var seenFeedback = Set<String>()
                for entry in feedback where entry.payloadType == nil || entry.payloadType == payloadType {
                    guard seenFeedback.insert(entry.value).inserted else { continue }
                    guard codec.feedback.count < limits.maximumFeedbackPerCodec else {
                        throw entry.line.malformed("more than \(limits.maximumFeedbackPerCodec) rtcp-fb values for payload type \(payloadType)")
                    }
                    codec.feedback.append(entry.value)
                }
                media.codecs.append(codec)
            }
            // fmtp/rtcp-fb lines for a listed payload type that has no encoding are kept as text.
            let described = Set(media.codecs.map(\.payloadType))
            media.otherAttributes += unattached.filter { !described.contains($0.payloadType) }.map(\.attribute)
        }
        media.otherAttributes = SessionDescription.stableSorted(media.otherAttributes) { $0.name == "rtcp" ? 0 : 1 }
        return media
    }
}
