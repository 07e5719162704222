import Foundation
import Testing

@testable import Carillon

@Suite struct DataMessagePayloadTests {
    @Test func acceptedDataKinds() throws {
        #expect(try DataMessagePayload.bytes(topic: "t", data: "héllo", lifetimeMs: 0) == Array("héllo".utf8))
        #expect(try DataMessagePayload.bytes(topic: "t", data: [UInt8]([1, 2]), lifetimeMs: 0) == [1, 2])
        #expect(try DataMessagePayload.bytes(topic: "t", data: Data([3]), lifetimeMs: 0) == [3])
        #expect(try DataMessagePayload.bytes(topic: "t", data: ["b": 1, "a": [true]], lifetimeMs: 0) == Array(#"{"a":[true],"b":1}"#.utf8))
        #expect(throws: SendDataMessageError.invalidData) { try DataMessagePayload.bytes(topic: "t", data: 42, lifetimeMs: 0) }
    }

    @Test func checksRunInTheChimeOrder() {
        // Lifetime is checked before the topic, the topic before the data.
        #expect(throws: SendDataMessageError.negativeLifetimeParameter) {
            try DataMessagePayload.bytes(topic: "bad topic", data: 42, lifetimeMs: -1)
        }
        #expect(throws: SendDataMessageError.invalidTopic) { try DataMessagePayload.bytes(topic: "bad topic", data: 42, lifetimeMs: 0) }
        #expect(throws: SendDataMessageError.invalidTopic) {
            try DataMessagePayload.bytes(topic: String(repeating: "a", count: 37), data: "x", lifetimeMs: 0)
        }
        #expect(throws: SendDataMessageError.invalidDataLength) {
            try DataMessagePayload.bytes(topic: "t", data: [UInt8](repeating: 0, count: 2049), lifetimeMs: 0)
        }
        #expect((try? DataMessagePayload.bytes(topic: "a-Z_09", data: [UInt8](repeating: 0, count: 2048), lifetimeMs: 0))?.count == 2048)
    }
}
