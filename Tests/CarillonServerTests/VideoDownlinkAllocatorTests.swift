import NIOCore
import Testing

@testable import CarillonServer

/// The mode-4 allocation of one receiver: tiers, targets, pausing, hysteresis and probing, with exact expectations.
struct VideoDownlinkAllocatorTests {
    typealias Allocator = VideoDownlinkAllocator

    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static func at(_ seconds: Double) -> NIODeadline { start + .nanoseconds(Int64(seconds * 1e9)) }

    /// Three simulcast layers (200/400/1100 kbps) of group `group`, stream ids group*10+1...3.
    static func simulcast(_ group: UInt32, priority: UInt32, target: Int = 10_000) -> Allocator.Source {
        Allocator.Source(groupId: group, priority: priority, targetKbps: target, layers: [
            .init(streamId: group * 10 + 1, bitrateKbps: 200, width: 240, height: 135),
            .init(streamId: group * 10 + 2, bitrateKbps: 400, width: 480, height: 270),
            .init(streamId: group * 10 + 3, bitrateKbps: 1_100, width: 960, height: 540),
        ])
    }

    static func single(_ group: UInt32, priority: UInt32, kbps: Int) -> Allocator.Source {
        Allocator.Source(groupId: group, priority: priority, targetKbps: 10_000,
                         layers: [.init(streamId: group * 10 + 1, bitrateKbps: kbps)])
    }

    @Test func higherTierIsServedToItsTargetBeforeALowerTierGetsAnything() {
        let high = Self.simulcast(1, priority: 4_294_967_294)
        let low = Self.simulcast(2, priority: 4_294_967_284)
        // 1300: the high tier first (200 → 400 → 1100), then low's lowest layer fits.
        #expect(Allocator.plan(budgetKbps: 1_300, sources: [high, low]).layers == [1: 2, 2: 0])
        // 1200: high at the top layer, nothing left for low.
        let tight = Allocator.plan(budgetKbps: 1_200, sources: [high, low])
        #expect(tight.layers == [1: 2, 2: nil])
        #expect(tight.nextUpgrade?.groupId == 2 && tight.nextUpgrade?.layer == 0 && tight.nextUpgrade?.deltaKbps == 200)
        // 1000: high cannot reach its top layer, so the lower tier gets nothing.
        #expect(Allocator.plan(budgetKbps: 1_000, sources: [high, low]).layers == [1: 1, 2: nil])
        // 150: not even the lowest layer of the high source.
        #expect(Allocator.plan(budgetKbps: 150, sources: [high, low]).layers == [1: nil, 2: nil])
        // Plenty: both on the top layer.
        #expect(Allocator.plan(budgetKbps: 5_000, sources: [high, low]).layers == [1: 2, 2: 2])
    }

    @Test func targetBitrateCapsUpgrades() {
        let medium = Self.simulcast(1, priority: 7, target: 600)
        let low = Self.simulcast(2, priority: 7, target: 300)
        // Same tier: lowest layers first, then upgrades within target: group 1 to 400 (1100 > 600), group 2 stays.
        let plan = Allocator.plan(budgetKbps: 5_000, sources: [medium, low])
        #expect(plan.layers == [1: 1, 2: 0])
        #expect(plan.nextUpgrade == nil)
    }

    @Test func sameTierSharesUpgradesRoundRobin() {
        let a = Self.simulcast(1, priority: 9)
        let b = Self.simulcast(2, priority: 9)
        // 200+200 base, +200 (a to 400), +200 (b to 400) = 800; a's 700 step to 1100 does not fit in 1000.
        #expect(Allocator.plan(budgetKbps: 1_000, sources: [a, b]).layers == [1: 1, 2: 1])
    }

    @Test func singleLayerSourcesAreServedOrPaused() {
        let high = Self.single(1, priority: 2, kbps: 400)
        let low = Self.single(2, priority: 1, kbps: 400)
        #expect(Allocator.plan(budgetKbps: 500, sources: [high, low]).layers == [1: 0, 2: nil])
        #expect(Allocator.plan(budgetKbps: 800, sources: [high, low]).layers == [1: 0, 2: 0])
    }

    @Test func lowersAtOncePausesAtOnceAndHoldsUpgrades() {
        var allocator = Allocator()
        let sources = [Self.simulcast(1, priority: 2), Self.simulcast(2, priority: 1)]
        // First allocation: everything fits, applied at once.
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, now: Self.at(0))
                == .init(layers: [1: 13, 2: 23]))
        // Estimate drops: low is lowered to its 200 layer at once (1100 + 200 ≤ 1400).
        #expect(allocator.allocate(estimateKbps: 1_400, sources: sources, now: Self.at(1))
                == .init(layers: [2: 21]))
        // Drops again: low is paused; the shortage began a second ago, so a probe (twice the estimate) is due.
        #expect(allocator.allocate(estimateKbps: 1_150, sources: sources, now: Self.at(2))
                == .init(paused: [2], probeKbps: 2_300))
        #expect(allocator.isPaused(2))
        #expect(allocator.layerStream(of: 1) == 13)
        // Recovers: the resume is held for 2 s, then applied on the top layer.
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, now: Self.at(3)) == .init())
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, now: Self.at(4)) == .init())
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, now: Self.at(5))
                == .init(resumed: [2], layers: [2: 23]))
    }

    /// A new sender's layers join its ladder as they are measured. Before any is, the subscribed stream (the top
    /// layer) stands in; once the lower ones are measured the receiver stays on the stream it has, not on the place
    /// in the ladder (which now names the lowest layer). A layer that leaves the ladder moves its receivers at once.
    @Test func whatAReceiverCarriesIsAStreamNotAPlaceOnTheLadder() {
        var allocator = Allocator()
        let standIn = Allocator.Source(groupId: 1, priority: 2, targetKbps: 10_000,
                                       layers: [.init(streamId: 13, bitrateKbps: 0)])
        #expect(allocator.allocate(estimateKbps: 2_500, sources: [standIn], lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 13]))
        let measured = [Self.simulcast(1, priority: 2)]
        #expect(allocator.allocate(estimateKbps: 2_500, sources: measured, lossSeen: false, now: Self.at(1)) == .init())
        #expect(allocator.layerStream(of: 1) == 13)
        // The sender turned its top layer off: the best layer left, at once.
        let withoutTop = [Allocator.Source(groupId: 1, priority: 2, targetKbps: 10_000,
                                           layers: Array(Self.simulcast(1, priority: 2).layers.prefix(2)))]
        #expect(allocator.allocate(estimateKbps: 2_500, sources: withoutTop, lossSeen: false, now: Self.at(2))
                == .init(layers: [1: 12]))
    }

    /// A new source served from its lowest layer (the only one measured yet) takes its upper layers as soon as they
    /// are measured and fit: nothing was lowered, so there is nothing to hold against flapping. Once it has been
    /// lowered, its upgrades are held again.
    @Test func aSourceNeverLoweredTakesItsUpperLayersAtOnce() {
        var allocator = Allocator()
        let lowestOnly = [Allocator.Source(groupId: 1, priority: 2, targetKbps: 10_000,
                                           layers: [Self.simulcast(1, priority: 2).layers[0]])]
        #expect(allocator.allocate(estimateKbps: 2_500, sources: lowestOnly, lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 11]))
        let sources = [Self.simulcast(1, priority: 2)]
        #expect(allocator.allocate(estimateKbps: 2_500, sources: sources, lossSeen: false, now: Self.at(1))
                == .init(layers: [1: 13]))
        // Lowered by an estimate with loss, then room again: the upgrade waits 2 s.
        #expect(allocator.allocate(estimateKbps: 500, sources: sources, now: Self.at(2)) == .init(layers: [1: 12]))
        #expect(allocator.allocate(estimateKbps: 2_500, sources: sources, now: Self.at(3)) == .init())
        #expect(allocator.allocate(estimateKbps: 2_500, sources: sources, now: Self.at(4)) == .init())
        #expect(allocator.allocate(estimateKbps: 2_500, sources: sources, now: Self.at(5)) == .init(layers: [1: 13]))
    }

    /// Without loss, an estimate that fell to 0.85 × what flows (one overuse, whatever caused it) keeps the
    /// allocation, and nothing served is paused however low the estimate; with loss the allocation follows the
    /// estimate at once.
    @Test func withoutLossAnEstimateNearWhatFlowsKeepsTheAllocation() {
        let sources = [Self.single(1, priority: 2, kbps: 400), Self.single(2, priority: 1, kbps: 400),
                       Self.single(3, priority: 1, kbps: 400)]
        var allocator = Allocator()
        #expect(allocator.allocate(estimateKbps: 2_000, sources: sources, lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 11, 2: 21, 3: 31]))
        // 1020 is 85 % of the 1200 that flows: kept (1200 is the budget), nothing paused, nothing to probe for.
        #expect(allocator.allocate(estimateKbps: 1_020, sources: sources, lossSeen: false, now: Self.at(1)) == .init())
        #expect(allocator.allocate(estimateKbps: 1_020, sources: sources, lossSeen: false, now: Self.at(2)) == .init())
        // The same estimate with loss reported: the lowest tier's last source is paused.
        var lossy = allocator
        #expect(lossy.allocate(estimateKbps: 1_020, sources: sources, lossSeen: true, now: Self.at(3)).paused == [3])
        // 500 is far below what flows: still nothing paused without loss, and at once with it.
        var lower = allocator
        #expect(lower.allocate(estimateKbps: 500, sources: sources, lossSeen: false, now: Self.at(3)).paused.isEmpty)
        #expect(allocator.allocate(estimateKbps: 500, sources: sources, lossSeen: true, now: Self.at(3)).paused == [2, 3])
    }

    /// Without loss, an estimate below ``VideoDownlinkAllocator/holdFraction`` of what flows lowers layers (down to
    /// each source's lowest) but pauses nothing.
    @Test func withoutLossAFarLowerEstimateLowersLayersButPausesNothing() {
        let sources = [Self.simulcast(1, priority: 2), Self.simulcast(2, priority: 1)]
        var allocator = Allocator()
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 13, 2: 23]))
        // 2200 served; 1300 is 59 %: high keeps its top layer, low would be paused but goes to its lowest instead.
        #expect(allocator.allocate(estimateKbps: 1_300, sources: sources, lossSeen: false, now: Self.at(1))
                == .init(layers: [2: 21]))
        // 300 (14 %): both at their lowest layers, neither paused; the shortage began a second ago, so a probe is due.
        #expect(allocator.allocate(estimateKbps: 300, sources: sources, lossSeen: false, now: Self.at(2))
                == .init(layers: [1: 11], probeKbps: 600))
        #expect(!allocator.isPaused(1) && !allocator.isPaused(2))
    }

    /// Without loss a new source is served at its lowest layer whatever the estimate (a receiver or server that runs
    /// late shows delay growth with nothing lost): the pagination guide's tile paused before its first frame.
    @Test func withoutLossANewSourceGetsItsLowestLayerEvenWhenItDoesNotFit() {
        var allocator = Allocator()
        let first = [Self.simulcast(1, priority: 2)]
        #expect(allocator.allocate(estimateKbps: 1_200, sources: first, lossSeen: false, now: Self.at(0)) == .init(layers: [1: 13]))
        let both = first + [Self.simulcast(2, priority: 1)]
        #expect(allocator.allocate(estimateKbps: 1_200, sources: both, lossSeen: false, now: Self.at(1)) == .init(layers: [2: 21]))
        #expect(!allocator.isPaused(2))
        // With loss the same arrival is paused at once.
        var lossy = Allocator()
        _ = lossy.allocate(estimateKbps: 1_200, sources: first, lossSeen: true, now: Self.at(0))
        #expect(lossy.allocate(estimateKbps: 1_200, sources: both, lossSeen: true, now: Self.at(1)) == .init(paused: [2]))
    }

    /// Without loss, an estimate that stays below half of what the lowest layers need for
    /// ``VideoDownlinkAllocator/sustainedShortfall`` pauses by priority (a link that cannot carry them); a shortfall
    /// that breaks off starts the wait again, and one above half never pauses.
    @Test func withoutLossASustainedShortfallPausesTheLowerPriorityFirst() {
        var allocator = Allocator()
        let sources = [Self.single(1, priority: 2, kbps: 200), Self.single(2, priority: 1, kbps: 600)]
        #expect(allocator.allocate(estimateKbps: 2_000, sources: sources, lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 11, 2: 21]))
        var above = allocator
        for second in 1...12 {
            #expect(above.allocate(estimateKbps: 420, sources: sources, lossSeen: false, now: Self.at(Double(second))).paused.isEmpty)
        }
        var paused: [Double] = []
        // 350 (the lowest layers need 800) from 1 s to 4 s, 900 at 5 s, then 350 again from 6 s.
        for second in 1...12 {
            let estimate = second == 5 ? 900 : 350
            let changes = allocator.allocate(estimateKbps: estimate, sources: sources, lossSeen: false, now: Self.at(Double(second)))
            if !changes.paused.isEmpty {
                #expect(changes.paused == [2])
                paused.append(Double(second))
            }
            #expect(!allocator.isPaused(1))
        }
        #expect(paused == [11])
        #expect(allocator.isPaused(2))
    }

    /// Without loss, what the receiver acknowledges of what flows is room whatever the estimate (a busy receiver's
    /// estimate saws below what it takes in); a receiver that takes in less than what is sent is lowered to fit it.
    @Test func withoutLossWhatTheReceiverAcknowledgesKeepsTheLayers() {
        let sources = [Self.simulcast(1, priority: 2), Self.simulcast(2, priority: 1)]
        var allocator = Allocator()
        #expect(allocator.allocate(estimateKbps: 3_000, sources: sources, lossSeen: false, now: Self.at(0))
                == .init(layers: [1: 13, 2: 23]))
        // 2200 flows; the estimate fell to 1300 (59 %) but 2150 was acknowledged: kept.
        var busy = allocator
        #expect(busy.allocate(estimateKbps: 1_300, sources: sources, lossSeen: false, acknowledgedKbps: 2_150,
                              now: Self.at(1)) == .init())
        // Only 1300 acknowledged too: the lower tier goes to its lowest layer.
        #expect(allocator.allocate(estimateKbps: 1_300, sources: sources, lossSeen: false, acknowledgedKbps: 1_300,
                                   now: Self.at(1)) == .init(layers: [2: 21]))
        // With loss the acknowledged rate does not count.
        var lossy = busy
        #expect(lossy.allocate(estimateKbps: 1_000, sources: sources, lossSeen: true, acknowledgedKbps: 2_150,
                               now: Self.at(2)) == .init(paused: [2], layers: [1: 12]))
    }

    @Test func ignoresEstimateChangesUnderFifteenPercent() {
        var allocator = Allocator()
        let sources = [Self.single(1, priority: 2, kbps: 500), Self.single(2, priority: 1, kbps: 500)]
        #expect(allocator.allocate(estimateKbps: 1_050, sources: sources, now: Self.at(0)) == .init(layers: [1: 11, 2: 21]))
        // 950 is under 10 % below 1050: nothing changes although 1000 would not fit.
        #expect(allocator.allocate(estimateKbps: 950, sources: sources, now: Self.at(1)) == .init())
        #expect(allocator.acceptedEstimateKbps == 1_050)
        // 880 is 16 % below: acted on.
        #expect(allocator.allocate(estimateKbps: 880, sources: sources, now: Self.at(2)) == .init(paused: [2]))
        #expect(allocator.acceptedEstimateKbps == 880)
    }

    @Test func asksForAPaddingProbeWhenSomethingDoesNotFitAndUpgradesWhenTheEstimateGrows() {
        var allocator = Allocator()
        let sources = [Self.single(1, priority: 2, kbps: 400), Self.single(2, priority: 1, kbps: 400)]
        #expect(allocator.allocate(estimateKbps: 600, sources: sources, now: Self.at(0)) == .init(paused: [2], layers: [1: 11]))
        // The shortage began: a probe 1 s later, at twice the estimate (more than the 1000 both need). Nothing is
        // resumed for it: the paused tile stays paused.
        #expect(allocator.allocate(estimateKbps: 600, sources: sources, now: Self.at(1)) == .init(probeKbps: 1_200))
        #expect(allocator.isProbing && allocator.isPaused(2))
        // The probe raised the estimate: the resume is wanted now and held for 2 s.
        #expect(allocator.allocate(estimateKbps: 1_050, sources: sources, now: Self.at(2)) == .init())
        #expect(!allocator.isProbing && allocator.isPaused(2))
        #expect(allocator.allocate(estimateKbps: 1_050, sources: sources, now: Self.at(3)) == .init())
        #expect(allocator.allocate(estimateKbps: 1_050, sources: sources, now: Self.at(4)) == .init(resumed: [2], layers: [2: 21]))
    }

    @Test func probesThatRaiseNothingDoubleTheWaitUpToFourSeconds() {
        var allocator = Allocator()
        let sources = [Self.single(1, priority: 2, kbps: 400), Self.single(2, priority: 1, kbps: 400)]
        var probes: [Int] = []
        for second in 0...20 {
            let changes = allocator.allocate(estimateKbps: 600, sources: sources, now: Self.at(Double(second)))
            if let kbps = changes.probeKbps {
                #expect(kbps == 1_200)
                probes.append(second)
            }
            #expect(allocator.isPaused(2))
        }
        // 1 s after the shortage, then 2, 4, 4, 4 s after each probe was judged (half a second after it, at the next
        // allocation: a second later).
        #expect(probes == [1, 4, 9, 14, 19])
    }

    @Test func aSourceAtItsTargetAsksForNoProbe() {
        var allocator = Allocator()
        let sources = [Self.simulcast(1, priority: 2, target: 300)]
        #expect(allocator.allocate(estimateKbps: 500, sources: sources, now: Self.at(0)) == .init(layers: [1: 11]))
        for second in 1...6 {
            #expect(allocator.allocate(estimateKbps: 500, sources: sources, now: Self.at(Double(second))) == .init())
        }
    }

    @Test func forgetsSourcesThatAreGone() {
        var allocator = Allocator()
        let both = [Self.single(1, priority: 2, kbps: 400), Self.single(2, priority: 1, kbps: 400)]
        _ = allocator.allocate(estimateKbps: 500, sources: both, now: Self.at(0))
        #expect(allocator.isPaused(2))
        _ = allocator.allocate(estimateKbps: 500, sources: [both[0]], now: Self.at(1))
        #expect(!allocator.isPaused(2))
        #expect(allocator.chosen.keys.sorted() == [1])
    }

    /// The ladder of `policies.md` §2.6 for a source whose layers differ in frame rate as well as size: each
    /// degradation preference keeps the layers that step along what it keeps.
    @Test func theDegradationPreferenceChoosesTheLadder() {
        let layers: [Allocator.Layer] = [
            .init(streamId: 1, bitrateKbps: 200, width: 320, height: 180, framerate: 15),
            .init(streamId: 2, bitrateKbps: 250, width: 640, height: 360, framerate: 7),
            .init(streamId: 3, bitrateKbps: 500, width: 640, height: 360, framerate: 15),
            .init(streamId: 4, bitrateKbps: 800, width: 1280, height: 720, framerate: 7),
        ]
        // By pixels, and a frame rate never more than 2 fps below the step before: 320x180@15, 640x360@15.
        #expect(Allocator.ladder(layers, degradation: .maintainFramerate).map(\.streamId) == [1, 3])
        // By frame rate, and pixels never below the step before: 640x360@7, 1280x720@7 (the 15 fps layers are smaller).
        #expect(Allocator.ladder(layers, degradation: .maintainResolution).map(\.streamId) == [2, 4])
        // Weighted bitrate: 640x360@7 (2.5k), 320x180@15 (8.8k, smaller: out), 640x360@15 (67k), 1280x720@7 (516k,
        // 8 fps slower: out).
        #expect(Allocator.ladder(layers, degradation: .balanced).map(\.streamId) == [2, 3])
        // Two layers, or a layer of unknown format: as they are.
        #expect(Allocator.ladder(Array(layers.prefix(2)), degradation: .maintainResolution) == Array(layers.prefix(2)))
        var unknown = layers
        unknown[1].framerate = 0
        #expect(Allocator.ladder(unknown, degradation: .maintainResolution) == unknown)
        // One frame rate for all (the senders in a Chime meeting): every preference keeps every layer, by size.
        let simulcast = Self.simulcast(1, priority: 1).layers.map { layer in
            var layer = layer
            layer.framerate = 15
            return layer
        }
        for degradation in [VideoDegradationPreference.balanced, .maintainFramerate, .maintainResolution] {
            #expect(Allocator.ladder(simulcast.reversed(), degradation: degradation) == simulcast, "\(degradation)")
        }
    }
}
