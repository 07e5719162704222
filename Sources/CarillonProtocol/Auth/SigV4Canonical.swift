import CarillonCrypto

/// The SigV4 canonicalization and key derivation shared by `SigV4Signer` and `SigV4Verifier`
/// (control-api.md 9.2, matching botocore's `SigV4Auth`).
enum SigV4Canonical {
    static let terminator = "aws4_request"

    /// Canonical URI: the raw (already percent-encoded) path with dot segments and empty segments removed, as
    /// botocore does, then URI-encoded once more keeping `/` and `~` (so `%2F` becomes `%252F`).
    static func canonicalURI(rawPath: String) -> String {
        uriEncode(Array(removingDotSegments(rawPath).utf8), keepSlash: true)
    }

    /// Canonical query: pairs split on `&` and the first `=`, percent-decoded, re-encoded with only RFC 3986
    /// unreserved characters kept, sorted by encoded name then encoded value, joined as `name=value` with `&`.
    static func canonicalQuery(rawQuery: String) -> String {
        var pairs: [(name: [UInt8], value: [UInt8])] = []
        for component in rawQuery.utf8.split(separator: UInt8(ascii: "&")) {
            let bytes = Array(component)
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                name = bytes[..<equals]
                value = bytes[(equals + 1)...]
            } else {
                name = bytes[...]
                value = []
            }
            pairs.append((Array(uriEncode(percentDecode(name), keepSlash: false).utf8),
                          Array(uriEncode(percentDecode(value), keepSlash: false).utf8)))
        }
        pairs.sort { lhs, rhs in
            lhs.name == rhs.name
                ? lhs.value.lexicographicallyPrecedes(rhs.value)
                : lhs.name.lexicographicallyPrecedes(rhs.name)
        }
        return pairs.map { String(decoding: $0.name + [UInt8(ascii: "=")] + $0.value, as: UTF8.self) }
            .joined(separator: "&")
    }

    /// Canonical header block for `names` (lowercase): `name:value\n` per name, values of repeated headers joined
    /// by `,`, each value trimmed with inner whitespace runs collapsed to one space.
    static func canonicalHeaders(names: [String], headers: [(name: String, value: String)]) throws(SigV4Error)
        -> String {
        var block = ""
        for name in names {
            let values = headers.filter { $0.name.lowercased() == name }.map { collapseWhitespace($0.value) }
            guard !values.isEmpty else { throw .missingSignedHeader(name) }
            block += name + ":" + values.joined(separator: ",") + "\n"
        }
        return block
    }

    /// The canonical request text.
    static func canonicalRequest(method: String, rawPath: String, rawQuery: String, canonicalHeaders: String,
                                 signedHeaders: [String], body: [UInt8]) -> String {
        [
            method.uppercased(),
            canonicalURI(rawPath: rawPath),
            canonicalQuery(rawQuery: rawQuery),
            canonicalHeaders,
            signedHeaders.joined(separator: ";"),
            Hex.encode(SHA256Digest.hash(body)),
        ].joined(separator: "\n")
    }

    /// Signature over `canonicalRequest` as 64 lowercase hex digits.
    static func signature(canonicalRequest: String, amzDate: String, scopeDate: String, region: String,
                          service: String, secretAccessKey: String) -> String {
        let scope = "\(scopeDate)/\(region)/\(service)/\(terminator)"
        let stringToSign = SigV4Authorization.algorithm + "\n" + amzDate + "\n" + scope + "\n"
            + Hex.encode(SHA256Digest.hash(Array(canonicalRequest.utf8)))
        var key = HMACSHA256.authenticate(Array(scopeDate.utf8), key: Array(("AWS4" + secretAccessKey).utf8))
        key = HMACSHA256.authenticate(Array(region.utf8), key: key)
        key = HMACSHA256.authenticate(Array(service.utf8), key: key)
        key = HMACSHA256.authenticate(Array(terminator.utf8), key: key)
        return Hex.encode(HMACSHA256.authenticate(Array(stringToSign.utf8), key: key))
    }

    /// RFC 3986 dot-segment removal plus dropping empty segments (AWS collapses `//`), as botocore's
    /// `normalize_url_path`. An empty path becomes `/`.
    static func removingDotSegments(_ path: String) -> String {
        if path.isEmpty { return "/" }
        var output: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
            if segment == ".." {
                if !output.isEmpty { output.removeLast() }
            } else {
                output.append(segment)
            }
        }
        let leading = path.hasPrefix("/") ? "/" : ""
        let trailing = path.hasSuffix("/") && !output.isEmpty ? "/" : ""
        return leading + output.joined(separator: "/") + trailing
    }

    /// Percent-encodes every byte except RFC 3986 unreserved characters (and `/` when `keepSlash`), uppercase hex.
    static func uriEncode(_ bytes: some Sequence<UInt8>, keepSlash: Bool) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays a literal `%`. `+` stays `+`.
    static func percentDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let decoded = Hex.decode(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self)) {
                out.append(decoded[0])
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    /// Trims the value and collapses inner whitespace runs to one space (botocore: `' '.join(value.split())`).
    static func collapseWhitespace(_ value: String) -> String {
        value.utf8.split(whereSeparator: { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) })
            .map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: " ")
    }
}
