extension AudioMixer {
    /// Identifies one participant within a mixer: the session's signaling connection, the one id a meeting has for a
    /// session, so nothing is translated between the mixer and the rest of the meeting.
    public typealias ParticipantID = SignalingConnectionID
}
