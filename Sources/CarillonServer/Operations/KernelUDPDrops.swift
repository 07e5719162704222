import Foundation

/// The kernel's count of datagrams dropped for a UDP socket (its receive buffer was full, or a checksum failed), as
/// the `drops` column of `/proc/net/udp` and `/proc/net/udp6` shows it per socket.
///
/// Read at scrape time: a few kilobytes of text, never on the media path.
enum KernelUDPDrops {
    /// The drops of the socket bound to local `port`, summed over IPv4 and IPv6 sockets on it; nil when `/proc` has
    /// no such socket or cannot be read (not Linux).
    static func read(port: Int, tables: [String] = ["/proc/net/udp", "/proc/net/udp6"]) -> Int? {
        var found: Int?
        for table in tables {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            if let drops = parse(text, port: port) { found = (found ?? 0) + drops }
        }
        return found
    }

    /// The drops of the sockets on local `port` in one table's text: each line after the header has
    /// `sl local_address rem_address st ... drops`, the local address as `HEXADDR:HEXPORT` and drops last.
    static func parse(_ text: String, port: Int) -> Int? {
        var found: Int?
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 13, let colon = fields[1].lastIndex(of: ":"),
                  Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port,
                  let drops = Int(fields[fields.count - 1])
            else { continue }
            found = (found ?? 0) + drops
        }
        return found
    }
}
