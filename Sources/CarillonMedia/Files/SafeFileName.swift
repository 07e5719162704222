import Foundation

/// Names from other people (an ExternalUserId, which Chime lets contain `/` and `..`) made into plain file names, so
/// every file a recording names after them stays inside its directory.
public enum SafeFileName {
    /// The longest name kept, in bytes (room left for a number and an extension under the usual 255-byte limit).
    public static let maximumLength = 200

    /// `name` as a plain file name: letters, digits and `._-+=,@#` are kept, anything else (a path separator, a control
    /// character, a space) becomes `_`, as does a leading `.` (no hidden file, no `..`); cut to ``maximumLength``
    /// bytes; `_` when nothing is left.
    public static func make(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            let kept = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-+=,@#".unicodeScalars.contains(scalar))
            let next = kept && !(result.isEmpty && scalar == ".") ? Character(scalar) : "_"
            guard result.utf8.count + String(next).utf8.count <= maximumLength else { break }
            result.append(next)
        }
        return result.isEmpty ? "_" : result
    }
}
