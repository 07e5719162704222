/// Screens a received DTLS datagram's records before OpenSSL reads them: a protected record (epoch 1 or later)
/// shorter than the cipher's smallest possible ciphertext is dropped here.
///
/// Why: RFC 6347 §4.1.2.7 says invalid records are discarded silently, but OpenSSL 3.0.19 (Debian 12's) turns such
/// a record into a fatal error of the whole association: afterwards it can no longer send close_notify or answer the
/// peer's retransmissions, while the endpoint still believes it is connected. A record that short cannot be
/// authentic, so dropping it loses nothing. Records whose header runs past the datagram end the scan; what came
/// before them is kept.
///
/// Cost: reads 13-byte headers only; the datagram is copied only when a record is dropped.
struct DTLSRecordScreen {
    /// The DTLS record header: type, version, epoch, sequence number, length.
    static let headerLength = 13
    /// The smallest expansion of any cipher suite this endpoint offers (ChaCha20-Poly1305's 16-byte tag): the bound
    /// before the suite is known.
    static let smallestExpansion = 16

    /// The smallest protected record, by cipher: AES-GCM carries an 8-byte explicit nonce and a 16-byte tag;
    /// ChaCha20-Poly1305 a 16-byte tag; CBC with HMAC-SHA1 a 16-byte IV, at least one 16-byte block and a 20-byte MAC
    /// (48 either way round, MAC-then-encrypt or encrypt-then-MAC).
    var minimumProtectedLength: Int = DTLSRecordScreen.smallestExpansion

    /// The datagram without undersized protected records; nil when nothing is left.
    func screen(_ datagram: [UInt8]) -> [UInt8]? {
        var offset = 0
        var kept: [Range<Int>] = []
        var droppedAny = false
        while offset + Self.headerLength <= datagram.count {
            let epoch = Int(datagram[offset + 3]) << 8 | Int(datagram[offset + 4])
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            let end = offset + Self.headerLength + length
            guard end <= datagram.count else { break }
            if epoch != 0, length < minimumProtectedLength {
                droppedAny = true
            } else {
                kept.append(offset..<end)
            }
            offset = end
        }
        if offset < datagram.count {
            // A truncated record: OpenSSL drops it too, but keep its bytes from reaching a decryption path.
            droppedAny = true
        }
        guard droppedAny else { return datagram }
        guard !kept.isEmpty else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(kept.reduce(0) { $0 + $1.count })
        for range in kept { result += datagram[range] }
        return result
    }
}
