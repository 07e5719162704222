import CCarillonOpenSSL

/// Reads OpenSSL's per-thread error queue into text for diagnostics.
///
/// Threading: the queue is per thread, so call it on the thread whose OpenSSL call failed.
public enum OpenSSLError {
    /// Empties the calling thread's OpenSSL error queue and returns its entries joined by "; ".
    public static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error recorded" : messages.joined(separator: "; ")
    }
}
