import Foundation

/// One access key pair that may sign control-API requests (AWS-style: key id plus secret).
public struct AccessKey: Codable, Sendable, Equatable {
    /// Public key id, e.g. `AKIA...`.
    public var accessKeyId: String
    /// Shared secret used to sign (never logged).
    public var secretAccessKey: String

    enum CodingKeys: String, CodingKey {
        case accessKeyId = "AccessKeyId"
        case secretAccessKey = "SecretAccessKey"
    }

    /// Creates a key pair from its parts.
    public init(accessKeyId: String, secretAccessKey: String) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    /// A new random key pair: `AKIA` plus 16 upper-case letters and digits, and a 40-character secret.
    public static func generate() -> AccessKey {
        var generator = SystemRandomNumberGenerator()
        let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let mixed = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let id = "AKIA" + String((0..<16).map { _ in upper.randomElement(using: &generator)! })
        let secret = String((0..<40).map { _ in mixed.randomElement(using: &generator)! })
        return AccessKey(accessKeyId: id, secretAccessKey: secret)
    }
}
