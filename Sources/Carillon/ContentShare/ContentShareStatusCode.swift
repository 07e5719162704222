/// The outcome of a content share, with Chime's raw values.
public enum ContentShareStatusCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// The share stopped because the app asked.
    case ok = 0
    /// The share's connection failed for good (refused by the server, e.g. the meeting already carries two shares,
    /// or lost beyond reconnecting): start it again to retry.
    case videoServiceFailed = 1

    /// The case name.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .videoServiceFailed: "videoServiceFailed"
        }
    }
}
