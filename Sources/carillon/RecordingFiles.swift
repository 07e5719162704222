import CarillonCodecs
import CarillonMedia
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `.y4m` files of `carillon join --video-out DIR`: `<name>.y4m`, then `<name>-2.y4m`, `<name>-3.y4m`, … for
/// each new file of the same name (a size change, a tile added again, a new tile of the same attendee).
///
/// The numbering belongs to the process, not to a tile, so a tile added again continues after the files of the one
/// before; and files are created exclusively, so one left by an earlier run, or made by anyone else, is skipped
/// rather than truncated. Names come from other attendees (their ExternalUserId, which Chime lets contain `/` and
/// `..`), so each is made a plain file name first (`SafeFileName`): every file stays inside the directory.
/// Threading: safe from any thread (a mutex guards the numbers).
final class RecordingFiles: Sendable {
    /// Where the files go.
    let directory: String
    /// The last number used per name (1 for the bare `<name>.y4m`).
    private let numbers = Mutex<[String: Int]>([:])

    init(directory: String) {
        self.directory = directory
    }

    /// The file name of the `number`th file of `name` (made safe).
    static func fileName(_ name: String, number: Int) -> String {
        let safe = SafeFileName.make(name)
        return number == 1 ? "\(safe).y4m" : "\(safe)-\(number).y4m"
    }

    /// Creates the next file of `name` that does not exist yet, and writes `header` into it.
    func create(_ name: String, header: Y4MHeader) throws(Y4MError) -> Y4MWriter {
        while true {
            let number = numbers.withLock { numbers in
                let next = (numbers[name] ?? 0) + 1
                numbers[name] = next
                return next
            }
            let path = (directory as NSString).appendingPathComponent(Self.fileName(name, number: number))
            do {
                return try Y4MWriter(path: path, header: header, replacing: false)
            } catch .io(_, _, EEXIST) {
                continue  // Taken: the next number.
            }
        }
    }
}
