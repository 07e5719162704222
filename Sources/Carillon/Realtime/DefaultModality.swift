/// Splits an attendee id into its base attendee id and its modality, as Chime's content share ids
/// (`<attendeeId>#content`) need.
///
/// `modality` is set only when the id has exactly one `#`. Unlike Chime's, an empty id does not trap: its base is
/// empty and it has no modality. Immutable; safe anywhere.
public final class DefaultModality: Sendable {
    /// What separates the base id from the modality.
    public static let separator: Character = "#"
    /// The whole id.
    public let id: String
    /// The part before the separator (the whole id when there is none).
    public let base: String
    /// The part after the separator, when the id has exactly one.
    public let modality: String?

    /// Splits `id`.
    public init(id: String) {
        self.id = id
        let parts = id.split(separator: Self.separator, omittingEmptySubsequences: false)
        self.base = parts.first.map(String.init) ?? ""
        self.modality = parts.count == 2 ? String(parts[1]) : nil
    }

    /// Whether the id's modality is `type` (e.g. a content share's id).
    public func isOfType(type: ModalityType) -> Bool { modality == type.rawValue }
}
