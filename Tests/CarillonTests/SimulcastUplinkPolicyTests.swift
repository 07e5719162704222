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

    @Test func bitrateIsSplitBottomUp() {
        let lowHi = SimulcastUplinkPolicy.layers(participants: 3, publishers: 3, highResolution: false)
        // The low layer first, the rest to hi up to its cap.
        #expect(SimulcastUplinkPolicy.allocate(2_000_000, to: lowHi) == [300_000, 0, 1_200_000])
        #expect(SimulcastUplinkPolicy.allocate(1_000_000, to: lowHi) == [300_000, 0, 700_000])
        // hi needs 150 kbps: with 449.999 kbps it is not sent.
        #expect(SimulcastUplinkPolicy.allocate(450_000, to: lowHi) == [300_000, 0, 150_000])
        #expect(SimulcastUplinkPolicy.allocate(449_999, to: lowHi) == [300_000, 0, 0])
        // The lowest layer is always sent, at least at its minimum.
        #expect(SimulcastUplinkPolicy.allocate(100_000, to: lowHi) == [100_000, 0, 0])
        #expect(SimulcastUplinkPolicy.allocate(0, to: lowHi) == [30_000, 0, 0])
        let midOnly = SimulcastUplinkPolicy.layers(participants: 2, publishers: 2, highResolution: false)
        #expect(SimulcastUplinkPolicy.allocate(900_000, to: midOnly) == [0, 900_000, 0])
        let lowMid = SimulcastUplinkPolicy.layers(participants: 9, publishers: 7, highResolution: false)
        #expect(SimulcastUplinkPolicy.allocate(500_000, to: lowMid) == [200_000, 300_000, 0])
        // mid needs 150 kbps.
        #expect(SimulcastUplinkPolicy.allocate(350_000, to: lowMid) == [200_000, 150_000, 0])
        #expect(SimulcastUplinkPolicy.allocate(349_999, to: lowMid) == [200_000, 0, 0])
    }
}
