import CarillonCodecs

/// Why a virtual camera could not be registered.
///
/// A plain value, safe to share.
public enum VirtualVideoDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given to ``VirtualVideoDevices/add(specification:)`` is not one of the documented forms.
    case invalidSpecification(String)
    /// A colour name that is not one of `VideoTestPattern.Color.palette`.
    case unknownColor(String)
    /// The Y4M file cannot be read.
    case file(Y4MError)
    /// The Y4M file holds no frame.
    case emptyFile(String)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidSpecification(let text):
            "'\(text)' is not a virtual camera (expected pattern, pattern:<colour> or y4m:<path>)"
        case .unknownColor(let name):
            "'\(name)' is not a pattern colour (one of \(VideoTestPattern.Color.palette.map(\.name).joined(separator: ", ")))"
        case .file(let error): error.description
        case .emptyFile(let path): "\(path) holds no frame"
        }
    }
}
