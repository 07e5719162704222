#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The server's data directory (`--data-dir`): it holds the database, with every attendee's join token and the
/// join-token secret, and the access-key file, so only its owner may read it.
///
/// Made `0700` when it is created; one that exists with access for others is kept as the operator left it and
/// reported (``prepare(_:)``). The files in it are made `0600` by their writers (``SQLiteMeetingStore``,
/// ``AccessKeyFile``).
public enum DataDirectory {
    /// Creates `url` (and missing parents) as `0700` if it does not exist; returns a warning to log when it exists
    /// with permissions for group or others. Throws ``DataDirectoryError`` when it cannot be created, is not a
    /// directory, or cannot be written.
    public static func prepare(_ url: URL) throws(DataDirectoryError) -> String? {
        let path = url.path
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            try create(path)
            return nil
        }
        guard isDirectory.boolValue else { throw DataDirectoryError(path: path, reason: "it is not a directory") }
        guard access(path, W_OK | X_OK) == 0 else { throw DataDirectoryError(path: path, reason: String(cString: strerror(errno))) }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw DataDirectoryError(path: path, error: error)
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 != 0 else { return nil }
        return "data directory \(path) is readable by others (mode \(String(mode, radix: 8))): it holds join tokens and "
            + "secrets; chmod 700 \(path)"
    }

    /// Creates `path` and its missing parents `0700`, one `mkdir` each, so a failure carries the system's reason.
    private static func create(_ path: String) throws(DataDirectoryError) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var prefix = ""
        for component in absolute.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw DataDirectoryError(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Makes the files at `paths` that exist readable and writable by their owner only.
    static func restrict(_ paths: [String]) throws {
        for path in paths where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
    }
}
