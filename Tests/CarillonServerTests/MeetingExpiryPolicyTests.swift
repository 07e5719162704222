import NIOCore
import Testing

@testable import CarillonServer

@Suite struct MeetingExpiryPolicyTests {
    @Test func chimeDefaultsEndIdleMeetingsAfterFiveMinutesAndAllAfterADay() {
        let policy = MeetingExpiryPolicy()
        #expect(policy.reason(age: .minutes(10), idle: .zero) == nil, "someone is connected")
        #expect(policy.reason(age: .minutes(10), idle: .seconds(299)) == nil)
        #expect(policy.reason(age: .minutes(10), idle: .minutes(5)) == .idle)
        #expect(policy.reason(age: .hours(24) - .nanoseconds(1), idle: .zero) == nil)
        #expect(policy.reason(age: .hours(24), idle: .zero) == .maximumDuration)
        #expect(policy.reason(age: .hours(25), idle: .hours(1)) == .maximumDuration, "the older limit names the reason")
    }

    @Test func checksComeOftenEnoughForTheShorterLimitWithinBounds() {
        #expect(MeetingExpiryPolicy().checkInterval == .seconds(30))
        #expect(MeetingExpiryPolicy(idleTimeout: .seconds(2), maximumDuration: .hours(1)).checkInterval == .milliseconds(400))
        #expect(MeetingExpiryPolicy(idleTimeout: .minutes(5), maximumDuration: .seconds(1)).checkInterval == .milliseconds(200))
        #expect(MeetingExpiryPolicy(idleTimeout: .milliseconds(10), maximumDuration: .hours(1)).checkInterval == .milliseconds(50))
    }
}
