import Testing

@testable import Carillon

/// The Chime score formula, checked against values computed by hand from `policies.md` §1.3.
@Suite struct DefaultActiveSpeakerPolicyTests {
    let alice = AttendeeInfo(attendeeId: "alice", externalUserId: "Alice")
    let bob = AttendeeInfo(attendeeId: "bob", externalUserId: "Bob")

    func expectClose(_ actual: Double, _ expected: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(actual - expected) < 1e-12, "\(actual) ≠ \(expected)", sourceLocation: sourceLocation)
    }

    @Test func constantsAndPriority() {
        #expect(DefaultActiveSpeakerPolicy.defaultSpeakerWeight == 0.9)
        #expect(DefaultActiveSpeakerPolicy.defaultCutoffThreshold == 0.01)
        #expect(DefaultActiveSpeakerPolicy.defaultTakeoverRate == 0.2)
        #expect(DefaultActiveSpeakerPolicy().prioritizeVideoSendBandwidthForActiveSpeaker())
    }

    @Test func continuousSpeechApproachesOne() {
        let policy = DefaultActiveSpeakerPolicy()
        let scores = (0..<5).map { _ in policy.calculateScore(attendeeInfo: alice, volume: .high) }
        for (score, expected) in zip(scores, [0.1, 0.19, 0.271, 0.3439, 0.40951]) { expectClose(score, expected) }
        // 1 − 0.9 in binary floating point is just below 0.1 (the Chime tests rely on this).
        #expect(scores[0] == 1 - 0.9)
        #expect(scores[0] < 0.1)
    }

    @Test func everySpeakingLevelCountsAlikeAndMutedIsSilence() {
        let policy = DefaultActiveSpeakerPolicy()
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .low), 0.1)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .medium), 0.19)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.271)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .muted), 0.2439)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .notSpeaking), 0.21951)
    }

    @Test func silenceFromZeroStaysZeroAndErodesNobody() {
        let policy = DefaultActiveSpeakerPolicy()
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.1)
        #expect(policy.calculateScore(attendeeInfo: bob, volume: .notSpeaking) == 0)
        #expect(policy.calculateScore(attendeeInfo: bob, volume: .muted) == 0)
        // Bob's silence left Alice's value alone: 0.1 · 0.9 + 0.1.
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.19)
    }

    @Test func aSpeakerErodesTheOthersByTheTakeoverRate() {
        let policy = DefaultActiveSpeakerPolicy()
        for _ in 0..<3 { _ = policy.calculateScore(attendeeInfo: alice, volume: .high) }  // alice 0.271
        expectClose(policy.calculateScore(attendeeInfo: bob, volume: .high), 0.1)  // alice 0.271 − 0.2 = 0.071
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .notSpeaking), 0.0639)  // 0.071 · 0.9
        expectClose(policy.calculateScore(attendeeInfo: bob, volume: .high), 0.19)  // alice max(0.0639 − 0.2, 0) = 0
        #expect(policy.calculateScore(attendeeInfo: alice, volume: .notSpeaking) == 0)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.1)  // restarts from 0
    }

    @Test func theCutoffHidesSmallScoresButKeepsTheValue() {
        let policy = DefaultActiveSpeakerPolicy(cutoffThreshold: 0.05)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.1)
        let decay = (0..<7).map { _ in policy.calculateScore(attendeeInfo: alice, volume: .notSpeaking) }
        let expected = [0.09, 0.081, 0.0729, 0.06561, 0.059049, 0.0531441, 0]  // 0.04782969 < 0.05 ⇒ 0
        for (score, value) in zip(decay, expected) { expectClose(score, value) }
        // The stored value was 0.04782969, not 0: 0.04782969 · 0.9 + 0.1.
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.143046721)
    }

    @Test func defaultCutoffNeedsFortyFourSilentUpdatesFromNearOne() {
        let policy = DefaultActiveSpeakerPolicy()
        var score = 0.0
        for _ in 0..<200 { score = policy.calculateScore(attendeeInfo: alice, volume: .high) }
        #expect(score > 0.999_999)
        var silent = 0
        while policy.calculateScore(attendeeInfo: alice, volume: .notSpeaking) > 0 { silent += 1 }
        // 0.9⁴³ ≈ 0.0108 ≥ 0.01 is still reported; 0.9⁴⁴ ≈ 0.0097 is the first 0.
        #expect(silent == 43)
    }

    @Test func customWeightAndTakeover() {
        let policy = DefaultActiveSpeakerPolicy(speakerWeight: 0.5, cutoffThreshold: 0.01, takeoverRate: 0.3)
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.5)
        expectClose(policy.calculateScore(attendeeInfo: bob, volume: .high), 0.5)  // alice 0.5 − 0.3 = 0.2
        expectClose(policy.calculateScore(attendeeInfo: alice, volume: .high), 0.6)  // 0.2 · 0.5 + 0.5; bob 0.2
        expectClose(policy.calculateScore(attendeeInfo: bob, volume: .notSpeaking), 0.1)  // 0.2 · 0.5
    }

    @Test func equalHistoriesGiveEqualScores() {
        let policy = DefaultActiveSpeakerPolicy(takeoverRate: 0)
        let first = policy.calculateScore(attendeeInfo: alice, volume: .high)
        let second = policy.calculateScore(attendeeInfo: bob, volume: .low)
        #expect(first == second)
        expectClose(first, 0.1)
    }
}
