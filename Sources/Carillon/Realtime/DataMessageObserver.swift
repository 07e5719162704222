/// Receives data messages of the topics it was added for, on the session's callback queue.
public protocol DataMessageObserver: AnyObject {
    /// A message arrived (the name's spelling is the Chime SDK's).
    func dataMessageDidReceived(dataMessage: DataMessage)
}
