import Carillon
import Foundation
import Testing

/// Real sound through a real server on 127.0.0.1: SDK sessions capture tones from virtual microphones, the server
/// mixes, and each session records what it hears.
@Suite(.timeLimit(.minutes(2)))
struct AudioEndToEndTests {
    let tones: [String: Double] = ["alice": 440, "bob": 660, "carol": 880]

    @Test func eachAttendeeHearsTheOthersTonesAndNotItsOwn() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await ToneMeeting.join(tones, harness: harness, meeting: try await harness.createMeeting())
        defer { meeting.remove() }
        try await Task.sleep(for: .seconds(4))
        try await meeting.stop()
        for attendee in meeting.attendees {
            let powers = try ToneMeeting.tonePowers(attendee.recording, Array(tones.values))
            let own = tones[attendee.name]!
            // Both other voices are there (within 15 dB of each other even when a loaded machine makes the jitter
            // buffer conceal a few frames), and the attendee's own voice is not (minus-self: only codec leakage).
            for (frequency, power) in powers where frequency != own {
                #expect(power > -20, "\(attendee.name) should hear \(frequency) Hz: \(powers)")
            }
            #expect(powers[own]! < -25, "\(attendee.name) should not hear its own \(own) Hz: \(powers)")
            print("tone powers heard by \(attendee.name): \(powers.sorted { $0.key < $1.key })")
        }
    }
}
