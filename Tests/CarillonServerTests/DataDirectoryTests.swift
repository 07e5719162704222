import Foundation
import Testing

@testable import CarillonServer

@Suite struct DataDirectoryTests {
    /// A data directory that cannot be used is named with the system's reason and the option to change (it was a raw
    /// Foundation error dump).
    @Test func anUnusableDirectoryIsNamedWithTheReason() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("data-dir-file-\(UUID().uuidString)")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: DataDirectoryError(path: file.path, reason: "it is not a directory")) {
            try DataDirectory.prepare(file)
        }
        let below = file.appendingPathComponent("data")
        #expect(throws: DataDirectoryError(path: below.path, reason: "Not a directory")) {
            try DataDirectory.prepare(below)
        }
        #expect(DataDirectoryError(path: "/x", reason: "Permission denied").description
                == "cannot use the data directory /x: Permission denied; choose another with --data-dir, or fix its "
                + "permissions (the server needs to create and write it)")
    }

    /// Missing parents are created too, the directory itself 0700.
    @Test func missingParentsAreCreated() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("data-dir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let nested = root.appendingPathComponent("a/b")
        #expect(try DataDirectory.prepare(nested) == nil)
        let mode = (try FileManager.default.attributesOfItem(atPath: nested.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o700)
    }
}
