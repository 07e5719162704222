import Foundation

/// The server's data directory (`--data-dir`): it holds the database, with every attendee's join token and the
/// join-token secret, and the access-key file, so only its owner may read it.
///
/// Made `0700` when it is created; one that exists with access for others is kept as the operator left it and
/// reported (``prepare(_:)``). The files in it are made `0600` by their writers (``SQLiteMeetingStore``,
/// ``AccessKeyFile``).
public enum DataDirectory {
    /// Creates `url` (and missing parents) as `0700` if it does not exist; returns a warning to log when it exists
    /// with permissions for group or others.
    public static func prepare(_ url: URL) throws -> String? {
        let path = url.path
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            return nil
        }
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 != 0 else { return nil }
        return "data directory \(path) is readable by others (mode \(String(mode, radix: 8))): it holds join tokens and "
            + "secrets; chmod 700 \(path)"
    }

    /// Makes the files at `paths` that exist readable and writable by their owner only.
    static func restrict(_ paths: [String]) throws {
        for path in paths where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
    }
}
