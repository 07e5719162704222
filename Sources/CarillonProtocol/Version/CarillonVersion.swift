/// The version of Carillon, shared by the SDK, the server and the CLI.
public enum CarillonVersion {
    /// Semantic version string sent as `X-Amzn-Version` and in `SdkClientDetails.chime_sdk_version`.
    public static let current = "0.1.0"
}
