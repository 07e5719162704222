import Foundation
import Logging
import PostgresNIO

@testable import CarillonServer

/// The tests' own PostgreSQL: Debian's server started once per test process by `scripts/test-postgresql.sh` on a
/// Unix socket in a private directory (no TCP port), stopped and removed by the script when this process exits and
/// its end of the script's standard input closes. Each test gets a database of its own.
final class TestPostgreSQL: @unchecked Sendable {
    /// The server, started on first use.
    static let shared = Result { try TestPostgreSQL() }

    /// Where the server's socket is.
    let socketDirectory: String
    private let process: Process
    /// Held open for the process's life: its closing is what stops the server.
    private let input: Pipe

    private init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/test-postgresql.sh")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { throw TestPostgreSQLError(message: "the server did not start") }
            if first == 0x0A { break }
            line.append(first)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.count == 2, words[0] == "ready" else {
            throw TestPostgreSQLError(message: "unexpected output: \(String(decoding: line, as: UTF8.self))")
        }
        socketDirectory = String(words[1])
    }

    /// What the stores of the tests log: errors only (the pool reports connections cut by a test's end at info).
    static var logger: Logger {
        var logger = Logger(label: "test-postgresql")
        logger.logLevel = .error
        return logger
    }

    /// A new empty database's configuration.
    func newDatabase() throws -> PostgresClient.Configuration {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let createdb = Process()
        createdb.executableURL = URL(fileURLWithPath: "/usr/bin/createdb")
        createdb.arguments = ["-h", socketDirectory, "-U", "postgres", name]
        try createdb.run()
        createdb.waitUntilExit()
        guard createdb.terminationStatus == 0 else { throw TestPostgreSQLError(message: "createdb \(name) failed") }
        return PostgresClient.Configuration(unixSocketPath: "\(socketDirectory)/.s.PGSQL.5432", username: "postgres",
                                            password: nil, database: name)
    }

    /// Runs `body` with a migrated store on a new database, its connection pool running meanwhile.
    static func withStore<T: Sendable>(_ body: @Sendable (PostgresMeetingStore) async throws -> T) async throws -> T {
        let configuration = try shared.get().newDatabase()
        let store = PostgresMeetingStore(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await store.run()
                return nil
            }
            defer { group.cancelAll() }
            try await store.migrate()
            return try await body(store)
        }
    }
}

/// The tests' PostgreSQL could not be started or used.
struct TestPostgreSQLError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
