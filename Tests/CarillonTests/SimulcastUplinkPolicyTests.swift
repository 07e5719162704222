import CarillonMedia
import Testing

@testable import Carillon

/// The camera simulcast table of `policies.md` §3.1 and the bottom-up bitrate split, exactly.
@Suite struct SimulcastUplinkPolicyTests {
    /// (scale, kbps) per layer, low/mid/hi.
    static func table(_ participants: Int, _ publishers: Int, fhd: Bool = false) -> [[Int]] {
        SimulcastUplinkPolicy.layers(participants: participants, publishers: publishers, highResolution: fhd)
            .map { [$0.scaleDown, Int($0.maxBitrateKbps)] }
    }

    @Test func twoParticipantsSendOnlyMidUnscaledAtTheHiTarget() {
        #expect(Self.table(1, 1) == [[4, 0], [1, 1_200], [1, 0]])
        #expect(Self.table(2, 2) == [[4, 0], [1, 1_200], [1, 0]])
        #expect(Self.table(2, 2, fhd: true) == [[4, 0], [1, 2_000], [1, 0]])
    }

    @Test func upToFourPublishersSendLowAndHi() {
        // Participants unknown (before INDEX) counts as more than two.
        #expect(Self.table(0, 1) == [[4, 300], [2, 0], [1, 1_200]])
        #expect(Self.table(3, 2) == [[4, 300], [2, 0], [1, 1_200]])
        #expect(Self.table(9, 4) == [[4, 300], [2, 0], [1, 1_200]])
        #expect(Self.table(9, 4, fhd: true) == [[4, 500], [2, 0], [1, 2_000]])
    }

    @Test func fiveToSixPublishersSendLowAtTwoThirdsAndMid() {
        #expect(Self.table(8, 5) == [[4, 200], [2, 600], [1, 0]])
        #expect(Self.table(8, 6) == [[4, 200], [2, 600], [1, 0]])
    }

    @Test func sevenPublishersOrMoreSendLowAndMidAtSixTenths() {
        #expect(Self.table(8, 7) == [[4, 200], [2, 360], [1, 0]])
        #expect(Self.table(30, 25) == [[4, 200], [2, 360], [1, 0]])
        #expect(Self.table(30, 25, fhd: true) == [[4, 333], [2, 600], [1, 0]])
    }

    @Test func layerSizesDivideTheSourceAndStayEven() {
        let layers = SimulcastUplinkPolicy.layers(participants: 3, publishers: 3, highResolution: false,
                                                  width: 1_280, height: 720)
        #expect(layers.map(\.rid) == ["low", "mid", "hi"])
        #expect(layers.map { [$0.width, $0.height] } == [[320, 180], [640, 360], [1_280, 720]])
        #expect(SimulcastUplinkPolicy.scaledSize(width: 642, height: 362, scaleDown: 4) == (160, 90))
        let two = SimulcastUplinkPolicy.layers(participants: 2, publishers: 2, highResolution: false,
                                               width: 640, height: 360)
        #expect(two[1].width == 640 && two[1].height == 360)
    }

    @Test func bitrateGoesToMinimumsThenWorkingRatesThenTheTopLayer() {
        let lowHi = SimulcastUplinkPolicy.layers(participants: 3, publishers: 3, highResolution: false)
        let hiSent = [true, false, true]
        // Both caps reached.
        #expect(SimulcastUplinkPolicy.allocate(2_000_000, to: lowHi, sending: hiSent) == [300_000, 0, 1_200_000])
        // Size unknown: low's working rate is half its cap (150 kbps); the rest goes to hi before low grows further.
        #expect(SimulcastUplinkPolicy.allocate(1_000_000, to: lowHi, sending: hiSent) == [150_000, 0, 850_000])
        #expect(SimulcastUplinkPolicy.allocate(1_500_000, to: lowHi, sending: hiSent) == [300_000, 0, 1_200_000])
        #expect(SimulcastUplinkPolicy.allocate(1_400_000, to: lowHi, sending: hiSent) == [200_000, 0, 1_200_000])
        // hi, while sent, needs 150 kbps beside low's 30.
        #expect(SimulcastUplinkPolicy.allocate(180_000, to: lowHi, sending: hiSent) == [30_000, 0, 150_000])
        #expect(SimulcastUplinkPolicy.allocate(250_000, to: lowHi, sending: hiSent) == [100_000, 0, 150_000])
        #expect(SimulcastUplinkPolicy.allocate(179_999, to: lowHi, sending: hiSent) == [179_999, 0, 0])
        // Not sent, it starts only with a quarter more than its minimum: 187.5 kbps left after low's 30.
        #expect(SimulcastUplinkPolicy.allocate(217_499, to: lowHi) == [217_499, 0, 0])
        #expect(SimulcastUplinkPolicy.allocate(217_500, to: lowHi) == [67_500, 0, 150_000])
        // The lowest layer is always sent, at least at its minimum.
        #expect(SimulcastUplinkPolicy.allocate(100_000, to: lowHi) == [100_000, 0, 0])
        #expect(SimulcastUplinkPolicy.allocate(0, to: lowHi) == [30_000, 0, 0])
        let midOnly = SimulcastUplinkPolicy.layers(participants: 2, publishers: 2, highResolution: false)
        #expect(SimulcastUplinkPolicy.allocate(900_000, to: midOnly) == [0, 900_000, 0])
        let lowMid = SimulcastUplinkPolicy.layers(participants: 9, publishers: 7, highResolution: false)
        #expect(SimulcastUplinkPolicy.allocate(500_000, to: lowMid, sending: [true, true, false]) == [140_000, 360_000, 0])
        // mid needs 150 kbps.
        #expect(SimulcastUplinkPolicy.allocate(180_000, to: lowMid, sending: [true, true, false]) == [30_000, 150_000, 0])
        #expect(SimulcastUplinkPolicy.allocate(179_999, to: lowMid, sending: [true, true, false]) == [179_999, 0, 0])
    }

    /// With the sizes known, a lower layer's working rate follows its pixels: a 320x180 camera's 80x44 thumbnail
    /// needs no more than its 30 kbps minimum before the full picture grows, a 1280x720 camera's 320x180 one 144 kbps.
    @Test func aLowerLayersWorkingRateFollowsItsSize() {
        let small = SimulcastUplinkPolicy.layers(participants: 4, publishers: 4, highResolution: false,
                                                 width: 320, height: 180)
        #expect(SimulcastUplinkPolicy.allocate(375_000, to: small, sending: [true, false, true]) == [30_000, 0, 345_000])
        let large = SimulcastUplinkPolicy.layers(participants: 4, publishers: 4, highResolution: false,
                                                 width: 1_280, height: 720)
        #expect(SimulcastUplinkPolicy.allocate(375_000, to: large, sending: [true, false, true]) == [144_000, 0, 231_000])
        #expect(SimulcastUplinkPolicy.allocate(1_600_000, to: large, sending: [true, false, true]) == [300_000, 0, 1_200_000])
    }
}
