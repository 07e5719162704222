/// What an ``ICELiteAgent`` reports after a datagram or a tick.
public enum ICELiteEvent: Sendable, Equatable {
    /// The peer nominated this address (USE-CANDIDATE): media goes there from now on.
    case selected(STUNAddress)
    /// The selected path moved to a new address (the peer's network changed).
    case migrated(from: STUNAddress, to: STUNAddress)
    /// No valid check arrived for the consent timeout: the path is gone.
    case consentExpired
}
