/// Severity of a log message, in the order the Chime SDK defines (upper-case names are part of the API).
public enum LogLevel: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// Everything, including media-engine chatter.
    case DEFAULT = 0
    /// Debugging detail.
    case DEBUG = 1
    /// Normal operational messages.
    case INFO = 2
    /// Recoverable faults.
    case FAULT = 3
    /// Errors.
    case ERROR = 4
    /// Nothing is logged.
    case OFF = 5

    /// The case name, e.g. `INFO`.
    public var description: String {
        switch self {
        case .DEFAULT: "DEFAULT"
        case .DEBUG: "DEBUG"
        case .INFO: "INFO"
        case .FAULT: "FAULT"
        case .ERROR: "ERROR"
        case .OFF: "OFF"
        }
    }
}
