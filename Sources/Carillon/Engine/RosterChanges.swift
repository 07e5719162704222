/// What one AUDIO_STREAM_ID_INFO frame changed, one list per callback.
struct RosterChanges: Sendable {
    var joined: [AttendeeInfo] = []
    var left: [AttendeeInfo] = []
    var dropped: [AttendeeInfo] = []
    var muted: [AttendeeInfo] = []
    var unmuted: [AttendeeInfo] = []

    var isEmpty: Bool { joined.isEmpty && left.isEmpty && dropped.isEmpty && muted.isEmpty && unmuted.isEmpty }
}
