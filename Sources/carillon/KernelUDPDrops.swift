import Foundation

/// Datagrams the kernel dropped because a UDP socket's receive buffer was full: the `drops` column of
/// `/proc/net/udp` and `/proc/net/udp6` summed over every socket of this network namespace (the benchmarks read it
/// before and after their window; a socket closed in between takes its count with it).
struct KernelUDPDrops {
    /// The sum now; nil when neither table can be read.
    static func total() -> Int? {
        var sum: Int?
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            // The header names the columns; `drops` is the last field of each socket's line.
            for line in text.split(separator: "\n").dropFirst() {
                guard let last = line.split(separator: " ").last, let drops = Int(last) else { continue }
                sum = (sum ?? 0) + drops
            }
        }
        return sum
    }
}
