import ArgumentParser
import Carillon
import Synchronization
import Testing
@testable import carillon

/// `carillon join --subscribe NAME=PRIORITY[:RESOLUTION]`: parsing, errors, and subscribing the SDK's own source
/// objects once the roster names them.
struct VideoSubscriptionOptionTests {
    private func message(_ texts: [String]) -> String? {
        do {
            _ = try VideoSubscriptionOption.parse(texts)
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func parsesNamePriorityAndResolution() throws {
        let options = try VideoSubscriptionOption.parse(["alice=highest:medium", "bob=low", "a=b=lowest:UHD"])
        #expect(options.map(\.name) == ["alice", "bob", "a=b"])
        #expect(options.map(\.priority) == [.highest, .low, .lowest])
        #expect(options.map(\.resolution) == [.medium, .high, .videoResolutionUHD])
        let configuration = options[0].configuration
        #expect(configuration.priority == .highest && configuration.targetResolution == .medium)
    }

    @Test func badInputGetsAClearError() {
        #expect(message(["alice"]) == "--subscribe alice: expected NAME=PRIORITY[:RESOLUTION], e.g. alice=high:medium")
        #expect(message(["=high"]) == "--subscribe =high: expected NAME=PRIORITY[:RESOLUTION], e.g. alice=high:medium")
        #expect(message(["alice=urgent"])
                == "--subscribe alice=urgent: unknown priority 'urgent'; use one of lowest, low, medium, high, highest")
        #expect(message(["alice=high:8k"])
                == "--subscribe alice=high:8k: unknown resolution '8k'; use one of low, medium, high, hd, fhd, uhd")
        #expect(message(["alice=high:low:x"]) == "--subscribe alice=high:low:x: expected NAME=PRIORITY[:RESOLUTION], e.g. alice=high:medium")
        #expect(message(["alice=high", "alice=low"]) == "--subscribe alice is given twice")
        #expect(message([]) == nil)
    }

    @Test func joinRejectsABadSubscribeBeforeConnecting() {
        #expect(throws: (any Error).self) { try JoinCommand.parse(["--meeting", "m", "--name", "bot", "--subscribe", "alice=urgent"]) }
    }

    @Test func subscribesTheSDKsSourceObjectsWhateverComesFirst() throws {
        let calls = Mutex<[[String: VideoPriority]]>([])
        let alice = RemoteVideoSource(), bob = RemoteVideoSource(), share = RemoteVideoSource()
        alice.attendeeId = "a-1"
        bob.attendeeId = "b-2"
        share.attendeeId = "a-1#content"
        let sources = [alice, bob, share]
        let subscriber = RemoteVideoSubscriber(options: try VideoSubscriptionOption.parse(
            ["alice=highest", "alice#content=medium"])) { added in
            // The very objects handed out are the keys.
            #expect(added.keys.allSatisfy { key in sources.contains { $0 === key } })
            calls.withLock { $0.append(Dictionary(uniqueKeysWithValues: added.map { ($0.key.attendeeId, $0.value.priority) })) }
        }
        // The source before the roster: nothing until the name is known.
        subscriber.sourcesAvailable([alice, bob])
        #expect(calls.withLock { $0 }.isEmpty)
        subscriber.attendeesJoined([("a-1", "alice"), ("b-2", "bob")])
        #expect(calls.withLock { $0 } == [["a-1": .highest]])
        // The roster before the source; bob is never subscribed.
        subscriber.sourcesAvailable([share])
        #expect(calls.withLock { $0 } == [["a-1": .highest], ["a-1#content": .medium]])
        // Gone and back: subscribed again.
        subscriber.sourcesUnavailable([alice])
        subscriber.sourcesAvailable([alice])
        #expect(calls.withLock { $0 }.count == 3)
    }
}
