import Foundation

/// Certificates a test makes with the `openssl` command (Debian's openssl package, present with libssl-dev): a CA,
/// a leaf it signs for 127.0.0.1 and localhost, the same leaf already expired, and a leaf signed by a second CA the
/// client does not trust.
struct TestCertificates {
    let directory: URL
    var caFile: String { path("ca.pem") }
    var otherCAFile: String { path("other-ca.pem") }
    var leaf: (certificate: String, key: String) { (path("leaf.pem"), path("leaf.key")) }
    var expiredLeaf: (certificate: String, key: String) { (path("expired.pem"), path("leaf.key")) }
    var untrustedLeaf: (certificate: String, key: String) { (path("untrusted.pem"), path("leaf.key")) }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Makes every file in a new temporary directory.
    static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let made = TestCertificates(directory: directory)
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(to: directory.appendingPathComponent("san.ext"),
                                                                 atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try made.openssl(["req", "-x509"] + ec + ["-keyout", "\(ca).key", "-out", "\(ca).pem", "-days", "2",
                                                      "-subj", "/CN=Carillon test \(ca)"])
        }
        try made.openssl(["req", "-new"] + ec + ["-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"])
        for (name, ca, days) in [("leaf", "ca", "2"), ("expired", "ca", "-1"), ("untrusted", "other-ca", "2")] {
            try made.openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key",
                              "-CAcreateserial", "-days", days, "-extfile", "san.ext", "-out", "\(name).pem"])
        }
        return made
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(String(decoding: output, as: UTF8.self))")
        }
    }
}
