extension SessionDescription {
    /// The SDP text: CRLF line endings (a final one included), `v=0`, `o=`, `s=`, `t=0 0`, session attributes
    /// (BUNDLE groups, ice-lite, ICE and DTLS attributes, other attributes, msid-semantic), then each media section, in
    /// the order browsers write them.
    public var serialized: String {
        var out = SDPWriter()
        out.line("v=0")
        out.line("o=\(origin.sdpValue)")
        out.line("s=\(sessionName)")
        for line in otherLines where line.rank(inSession: true) < 4 { out.line(line) }
        if let connection { out.line("c=\(connection)") }
        for line in otherLines where (4...5).contains(line.rank(inSession: true)) { out.line(line) }
        out.line("t=0 0")
        for line in otherLines where line.rank(inSession: true) > 5 { out.line(line) }
        for group in bundleGroups { out.attribute((["group:BUNDLE"] + group).joined(separator: " ")) }
        if iceLite { out.attribute("ice-lite") }
        if let iceUsernameFragment { out.attribute("ice-ufrag:\(iceUsernameFragment)") }
        if let icePassword { out.attribute("ice-pwd:\(icePassword)") }
        if !iceOptions.isEmpty { out.attribute("ice-options:\(iceOptions.joined(separator: " "))") }
        if let fingerprint { out.attribute("fingerprint:\(fingerprint.sdpValue)") }
        if let setup { out.attribute("setup:\(setup.rawValue)") }
        // msid-semantic goes last, as both Chromium (after extmap-allow-mixed) and Firefox write it, unless repeated
        // msid-semantic lines are kept as text: then it goes just before the first of them, so that it stays the
        // modelled one when parsed again and the other attributes keep their order around the repeats.
        var semanticWritten = msidSemantic == nil
        func writeSemantic() {
            guard !semanticWritten, let msidSemantic else { return }
            out.attribute(msidSemantic.isEmpty ? "msid-semantic:" : "msid-semantic: \(msidSemantic)")
            semanticWritten = true
        }
        for attribute in sessionAttributes {
            if attribute.name == "msid-semantic" { writeSemantic() }
            out.attribute(attribute.sdpValue)
        }
        writeSemantic()
        for section in media { section.write(to: &out) }
        return out.text
    }
}

extension MediaDescription {
    /// This section's lines, CRLF-terminated, as `SessionDescription.serialized` writes them.
    public var serialized: String {
        var out = SDPWriter()
        write(to: &out)
        return out.text
    }

    func write(to out: inout SDPWriter) {
        let formatList = formats.isEmpty ? codecs.map { String($0.payloadType) } : formats
        let portText = numberOfPorts.map { "\(port)/\($0)" } ?? "\(port)"
        out.line((["m=\(kind)", portText, proto] + formatList).joined(separator: " "))
        for line in otherLines where line.rank(inSession: false) == 0 { out.line(line) }
        if let connection { out.line("c=\(connection)") }
        for line in otherLines where line.rank(inSession: false) > 0 { out.line(line) }
        for attribute in otherAttributes where attribute.name == "rtcp" { out.attribute(attribute.sdpValue) }
        if let iceUsernameFragment { out.attribute("ice-ufrag:\(iceUsernameFragment)") }
        if let icePassword { out.attribute("ice-pwd:\(icePassword)") }
        if !iceOptions.isEmpty { out.attribute("ice-options:\(iceOptions.joined(separator: " "))") }
        if let fingerprint { out.attribute("fingerprint:\(fingerprint.sdpValue)") }
        if let setup { out.attribute("setup:\(setup.rawValue)") }
        if let mid { out.attribute("mid:\(mid)") }
        for header in extensions { out.attribute("extmap:\(header.sdpValue)") }
        // A data section leaves out the default direction, unless a repeated direction kept as text follows: the
        // modelled one must come first to stay the modelled one when parsed again.
        let repeatsDirection = otherAttributes.contains { SDPDirection(rawValue: $0.name) != nil }
        if isRTP || direction != .sendrecv || repeatsDirection { out.attribute(direction.rawValue) }
        for id in msid { out.attribute("msid:\(id.sdpValue)") }
        if rtcpMux { out.attribute("rtcp-mux") }
        if rtcpReducedSize { out.attribute("rtcp-rsize") }
        for codec in codecs {
            out.attribute("rtpmap:\(codec.rtpmapValue)")
            for value in codec.feedback { out.attribute("rtcp-fb:\(codec.payloadType) \(value)") }
            if let fmtp = codec.fmtpText { out.attribute("fmtp:\(codec.payloadType) \(fmtp)") }
        }
        for group in ssrcGroups { out.attribute("ssrc-group:\(group.sdpValue)") }
        for ssrc in ssrcs {
            for value in ssrc.sdpValues { out.attribute("ssrc:\(value)") }
        }
        for rid in rids { out.attribute("rid:\(rid.sdpValue)") }
        if let simulcast { out.attribute("simulcast:\(simulcast.sdpValue)") }
        for candidate in candidates { out.attribute(candidate.sdpValue) }
        if endOfCandidates { out.attribute("end-of-candidates") }
        for attribute in otherAttributes where attribute.name != "rtcp" { out.attribute(attribute.sdpValue) }
    }
}

/// Accumulates CRLF-terminated SDP lines.
struct SDPWriter {
    private(set) var text = ""

    mutating func line(_ line: String) {
        text += line
        text += "\r\n"
    }

    mutating func line(_ line: SDPLine) { self.line("\(line.type)=\(line.value)") }

    mutating func attribute(_ value: String) { line("a=\(value)") }
}
