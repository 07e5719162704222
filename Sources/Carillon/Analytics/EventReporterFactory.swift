/// Makes the session's ``EventReporter``; nil means events are not reported anywhere (observers and history still
/// get them).
public protocol EventReporterFactory: AnyObject {
    /// The reporter, or nil for none.
    func createEventReporter() -> (any EventReporter)?
}
