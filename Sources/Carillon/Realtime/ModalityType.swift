/// The modalities an attendee id can carry after `#`: today only content share (`<attendeeId>#content`).
public enum ModalityType: String, Error, Sendable, CaseIterable {
    /// A content share.
    case content
}
