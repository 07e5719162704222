import Foundation

/// Where the server's access keys come from: the environment, or a file in the data directory made on first run.
public enum AccessKeyFile {
    /// Name of the key file inside the data directory.
    public static let fileName = "access-keys.json"

    /// How a key was obtained, so the CLI can tell the operator.
    public enum Origin: Sendable, Equatable {
        /// From `CARILLON_ACCESS_KEY_ID` and `CARILLON_SECRET_ACCESS_KEY`.
        case environment
        /// Read from the data directory's key file.
        case file(path: String)
        /// Generated just now and written to the key file.
        case generated(path: String)
    }

    /// Problems with the key configuration.
    public enum Failure: Error, CustomStringConvertible {
        /// Only one of the two environment variables is set.
        case incompleteEnvironment
        /// The key file exists but cannot be read as keys.
        case unreadable(path: String, reason: String)

        /// A readable summary of the error.
        public var description: String {
            switch self {
            case .incompleteEnvironment:
                "set both CARILLON_ACCESS_KEY_ID and CARILLON_SECRET_ACCESS_KEY, or neither"
            case .unreadable(let path, let reason):
                "cannot read access keys from \(path): \(reason)"
            }
        }
    }

    /// Loads the keys the server accepts: environment first, else the file, else a new generated key saved to it.
    public static func load(
        dataDirectory: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (keys: [AccessKey], origin: Origin) {
        let id = environment["CARILLON_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = environment["CARILLON_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (id, secret) {
        case let (id?, secret?):
            return ([AccessKey(accessKeyId: id, secretAccessKey: secret)], .environment)
        case (nil, nil):
            break
        default:
            throw Failure.incompleteEnvironment
        }
        let url = dataDirectory.appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: url.path) {
            do {
                let keys = try JSONDecoder().decode([AccessKey].self, from: Data(contentsOf: url))
                guard !keys.isEmpty else { throw Failure.unreadable(path: url.path, reason: "no keys in the file") }
                return (keys, .file(path: url.path))
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure.unreadable(path: url.path, reason: "\(error)")
            }
        }
        let key = AccessKey.generate()
        return ([key], .generated(path: try save([key], dataDirectory: dataDirectory)))
    }

    /// Writes `keys` to the data directory's key file (readable by its owner only); returns its path.
    @discardableResult
    public static func save(_ keys: [AccessKey], dataDirectory: URL) throws -> String {
        let url = dataDirectory.appendingPathComponent(fileName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(keys).write(to: url, options: .atomic)
        // The secret file is for the operator only.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }
}
