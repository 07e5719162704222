import Foundation
import NIOCore

/// Which layer of each subscribed video source one receiver gets, and which sources it does not get at all: the
/// server-side allocation of adaptation mode 4 (`video.md` §3, `policies.md` §2.8, `signaling.md` §3.10), sans-IO.
///
/// Inputs, at each ``allocate(estimateKbps:sources:lossSeen:now:)``: the receiver's downlink estimate and whether it
/// reported loss lately, and, per subscribed
/// source, its group, priority (wire value: larger is more important), target bitrate (from the target resolution)
/// and its layers with their measured bitrates, lowest first. The walk (``plan(budgetKbps:sources:)``) takes the
/// priority tiers from the most important: every source of a tier gets its lowest layer if it fits, then the tier's
/// sources are upgraded one step at a time, round robin, while the next layer stays within the source's target and the
/// budget. A tier that is not fully served (a source without a layer, or an upgrade within target that does not fit)
/// is the last one served: lower tiers get nothing, so a lower-priority source is lowered, then paused, before a
/// higher one loses anything. Sources that get nothing are paused.
///
/// Hysteresis, so it does not flap: an estimate within ``changeThreshold`` of the one last acted on is ignored;
/// lowering and pausing happen at once, but once a source has been lowered or paused (on arrival too), an upgrade or a
/// resume of it is applied only after it has been wanted for ``upgradeHold``. A source never lowered takes each step
/// up at once: a new sender's upper layers join its ladder a report or two after its lowest one, as they are
/// measured, and holding those steps would show a new camera small for seconds with nothing to flap. What a receiver
/// carries is kept as a stream, not a place on the ladder, so a layer joining or leaving the ladder moves no one.
/// Without recent loss (delay growth alone also comes from a receiver or a server that runs late):
/// ``acknowledgedShare`` of what the receiver acknowledges may be used whatever the estimate, an estimate within
/// ``holdFraction`` of what is sent keeps the current allocation, and nothing is paused (a served source is only
/// lowered, a new one served at its lowest layer) unless estimate and acknowledged rate have both stayed below
/// ``shortfallFraction`` of what the sources' lowest layers need for ``sustainedShortfall``. Probing: an estimate
/// only grows up to about 1.5 times what is sent, so while something did not fit (a source below its target) the
/// allocator asks for a bandwidth probe (``Changes/probeKbps``: padding on the
/// downlink, twice the estimate or what the next upgrade needs, whichever is more) ``initialProbeInterval`` after the
/// shortage began and after each probe that raised the estimate; a probe that did not raise it by
/// ``probeSuccessRatio`` doubles the wait, up to ``maximumProbeInterval``. Nothing is resumed or raised to probe: what
/// the receiver sees changes only when the estimate grows.
///
/// A single-layer source is served or paused. Cost: O(sources × layers) per call, a few small arrays; called once a
/// second per receiver. Threading: a value owned by the router, on the meeting's event loop.
struct VideoDownlinkAllocator: Sendable {
    /// One layer of a source: the stream that carries it, its measured bitrate, its size and frame rate (0 when
    /// unknown).
    struct Layer: Sendable, Equatable {
        var streamId: UInt32
        var bitrateKbps: Int
        var width = 0
        var height = 0
        var framerate = 0
    }

    /// One subscribed source as the receiver configured it.
    struct Source: Sendable, Equatable {
        var groupId: UInt32
        /// Wire priority: larger is more important; equal values share a tier.
        var priority: UInt32
        /// The ceiling of the layer chosen by upgrades (300/600/1500/10000 kbps from the target resolution).
        var targetKbps: Int
        /// The layers, lowest bitrate first.
        var layers: [Layer]
    }

    /// What one call changed.
    struct Changes: Sendable, Equatable {
        /// Groups no longer forwarded, ascending.
        var paused: [UInt32] = []
        /// Groups forwarded again, ascending.
        var resumed: [UInt32] = []
        /// Groups (newly served or resumed included) and the stream of the layer they carry now.
        var layers: [UInt32: UInt32] = [:]
        /// A bandwidth probe to send now, at this rate (kbps); nil when none is due.
        var probeKbps: Int?

        var isEmpty: Bool { paused.isEmpty && resumed.isEmpty && layers.isEmpty && probeKbps == nil }
    }

    /// The result of one walk: the layer index per group (nil: paused) and the first thing that did not fit.
    struct Plan: Sendable, Equatable {
        var layers: [UInt32: Int?]
        /// The group and layer index that did not fit first, and the extra kbps it needed.
        var nextUpgrade: (groupId: UInt32, layer: Int, deltaKbps: Int)?

        static func == (lhs: Plan, rhs: Plan) -> Bool {
            lhs.layers == rhs.layers && lhs.nextUpgrade?.groupId == rhs.nextUpgrade?.groupId
                && lhs.nextUpgrade?.layer == rhs.nextUpgrade?.layer && lhs.nextUpgrade?.deltaKbps == rhs.nextUpgrade?.deltaKbps
        }
    }

    /// Estimate changes smaller than this fraction of the estimate last acted on are ignored.
    static let changeThreshold = 0.15
    /// Without loss, an estimate down to this fraction of what the current allocation sends keeps the allocation.
    /// An overuse cuts the estimate to 0.85 × what was acknowledged whatever its cause, and a receiver on a busy
    /// machine, descheduled now and then, reads packets late and in bunches: its feedback shows delay growth although
    /// everything gets through. Pausing or lowering on that alone takes video away from a link that carries it. A
    /// link that really cannot carry the allocation drops packets once its queue is full (then loss counts) or
    /// pushes the estimate further down (below this fraction). And without loss a source being served is never
    /// paused, only lowered (to its lowest layer at most): measured on a loaded machine, a receiver's acknowledged
    /// rate reads well under what is sent while it is descheduled, so its estimate can fall below any fraction of
    /// the allocation with nothing lost; a link that cannot carry even the lowest layers fills its queue and loses.
    static let holdFraction = 0.7
    /// Without loss, sources are paused only once the estimate and the acknowledged rate have stayed below
    /// ``shortfallFraction`` of what the lowest layers of all of them need for this long. A busy receiver's estimate saws below what it takes in (each
    /// stall reads as overuse and cuts it to 0.85 × what was acknowledged): a receiver stalled 150 ms in every 500 ms
    /// on a server 30 ms late held at 0.67 of it with nothing lost (`VirtualBusyReceiverTests`). A link that cannot
    /// carry even half of the lowest layers keeps its estimate far lower (and soon loses packets too).
    static let sustainedShortfall = TimeAmount.seconds(5)
    /// See ``sustainedShortfall``.
    static let shortfallFraction = 0.5
    /// The share of what a receiver acknowledges that counts as room without loss: the margin lets the queue behind a
    /// link that has just narrowed drain (the share a delay-based estimate backs off to), and a receiver that takes in
    /// everything keeps its allocation by ``holdFraction``.
    static let acknowledgedShare = 0.85
    /// How long an upgrade or a resume must be wanted before it is applied.
    static let upgradeHold = TimeAmount.seconds(2)
    /// The first wait before a probe, and the wait after one that raised the estimate.
    static let initialProbeInterval = TimeAmount.seconds(1)
    /// The longest wait between probes (the wait doubles after each one that did not raise the estimate).
    static let maximumProbeInterval = TimeAmount.seconds(4)
    /// How long after a probe its effect on the estimate is judged (its feedback comes within a round trip or two).
    static let probeSettleTime = TimeAmount.milliseconds(500)
    /// A probe succeeded when the estimate grew by this factor.
    static let probeSuccessRatio = 1.1

    private struct Probe {
        var startedAt: NIODeadline
        var startEstimateKbps: Int
    }

    /// The stream each known group carries; nil when paused.
    private(set) var chosen: [UInt32: UInt32?] = [:]
    /// Groups this allocation has lowered or paused (on arrival included): their upgrades and resumes are held.
    private var lowered: Set<UInt32> = []
    /// The estimate the allocation acts on (changes under ``changeThreshold`` are ignored).
    private(set) var acceptedEstimateKbps: Int?
    private var upgradeWantedSince: [UInt32: NIODeadline] = [:]
    private var probe: Probe?
    private var probeInterval = VideoDownlinkAllocator.initialProbeInterval
    private var nextProbeAt: NIODeadline?
    /// Since when the estimate has been below what the sources' lowest layers need, without a break.
    private var shortfallSince: NIODeadline?

    /// Creates an allocator with nothing allocated.
    init() {}

    /// Whether a probe was asked for and is not judged yet.
    var isProbing: Bool { probe != nil }

    /// The stream of the layer `groupId` carries, nil when it is paused or unknown.
    func layerStream(of groupId: UInt32) -> UInt32? { chosen[groupId] ?? nil }

    /// Whether `groupId` is paused by the allocation.
    func isPaused(_ groupId: UInt32) -> Bool { chosen[groupId].map { $0 == nil } ?? false }

    /// Runs the allocation for the receiver's current estimate and sources; returns what changed. `lossSeen`: the
    /// receiver reported loss lately; without it an estimate within ``holdFraction`` of what flows keeps the
    /// allocation. The default (true) follows every estimate at once. `acknowledgedKbps`: what the receiver's feedback
    /// says it took in lately (nil: unknown); without loss the allocation may use that much whatever the estimate:
    /// a link that carries it has room for it, and a busy receiver's delay-based estimate saws well below it (each
    /// late read looks like a queue), while a link that really is too narrow holds what it takes in below what is
    /// sent.
    mutating func allocate(estimateKbps: Int, sources: [Source], lossSeen: Bool = true, acknowledgedKbps: Int? = nil,
                           now: NIODeadline) -> Changes {
        let groups = Set(sources.map(\.groupId))
        for gone in chosen.keys where !groups.contains(gone) {
            chosen[gone] = nil
            upgradeWantedSince[gone] = nil
            lowered.remove(gone)
        }
        if let accepted = acceptedEstimateKbps {
            if Double(abs(estimateKbps - accepted)) >= Self.changeThreshold * Double(accepted) {
                acceptedEstimateKbps = estimateKbps
            }
        } else {
            acceptedEstimateKbps = estimateKbps
        }
        var budget = acceptedEstimateKbps ?? estimateKbps
        var evidenceKbps = estimateKbps
        if !lossSeen {
            let served = servedKbps(sources)
            // What flows and gets through, nothing lost: the link carries it (less a margin that lets a queue behind
            // a real bottleneck drain).
            let carried = min(served, Int(Self.acknowledgedShare * Double(acknowledgedKbps ?? 0)))
            budget = max(budget, carried)
            evidenceKbps = max(estimateKbps, acknowledgedKbps ?? 0)
            if budget < served, Double(budget) >= Self.holdFraction * Double(served) { budget = served }
        }
        var plan = Self.plan(budgetKbps: budget, sources: sources)
        let lowestKbps = sources.reduce(0) { $0 + ($1.layers.first?.bitrateKbps ?? 0) }
        shortfallSince = Double(evidenceKbps) < Self.shortfallFraction * Double(lowestKbps) ? shortfallSince ?? now : nil
        let sustained = shortfallSince.map { now - $0 >= Self.sustainedShortfall } ?? false
        if !lossSeen, !sustained {
            // Delay growth alone lowers layers but pauses nothing: a served or new source gets its lowest layer (see
            // ``holdFraction``); one already paused stays so until the plan wants it again.
            for group in plan.layers.keys where plan.layers[group] == .some(nil) {
                if case .some(.none) = chosen[group] { continue }
                plan.layers[group] = .some(0)
            }
        }
        var changes = apply(plan, sources: sources, now: now)
        if let running = probe, now - running.startedAt >= Self.probeSettleTime {
            probe = nil
            let raised = Double(estimateKbps) >= Self.probeSuccessRatio * Double(running.startEstimateKbps)
            probeInterval = raised ? Self.initialProbeInterval : min(probeInterval * 2, Self.maximumProbeInterval)
            nextProbeAt = now + probeInterval
        }
        if let next = plan.nextUpgrade {
            if let due = nextProbeAt {
                if probe == nil, now >= due {
                    probe = Probe(startedAt: now, startEstimateKbps: estimateKbps)
                    changes.probeKbps = max(2 * estimateKbps, budget + next.deltaKbps)
                }
            } else {
                // A shortage begins: the first probe after the initial wait.
                nextProbeAt = now + Self.initialProbeInterval
            }
        } else if probe == nil {
            // Everything fits: the next shortage starts a fresh wait.
            nextProbeAt = nil
            probeInterval = Self.initialProbeInterval
        }
        return changes
    }

    /// What the current allocation sends: the measured bitrates of the layers it carries.
    private func servedKbps(_ sources: [Source]) -> Int {
        sources.reduce(0) { total, source in
            guard let stream = chosen[source.groupId] ?? nil,
                  let layer = source.layers.first(where: { $0.streamId == stream }) else { return total }
            return total + layer.bitrateKbps
        }
    }

    /// Moves ``chosen`` toward `plan`: lowering and pausing at once; new groups, and groups never lowered, at once;
    /// an upgrade or a resume of a group lowered before after ``upgradeHold``.
    private mutating func apply(_ plan: Plan, sources: [Source], now: NIODeadline) -> Changes {
        var changes = Changes()
        for source in sources.sorted(by: { $0.groupId < $1.groupId }) {
            let group = source.groupId
            guard let wanted = plan.layers[group] else { continue }
            let previous = chosen[group]
            // Where the group stands on this call's ladder; a stream the ladder no longer offers (its sender turned
            // that layer off) counts as not served yet.
            let current: Int??
            switch previous {
            case .none: current = .none
            case .some(.none): current = .some(nil)
            case .some(.some(let stream)):
                current = source.layers.firstIndex { $0.streamId == stream }.map { .some($0) }
            }
            let next: Int?
            switch (current, wanted) {
            case (.none, _):
                next = wanted
                if wanted == nil { lowered.insert(group) }
            case (.some(let was?), let want?) where want < was:
                next = want
                lowered.insert(group)
            case (.some(.some), .none):
                next = nil
                lowered.insert(group)
            case (.some(let was), let want) where was == want:
                next = want
            default:
                // An upgrade or a resume: at once for a group never lowered, else held.
                if !lowered.contains(group) {
                    next = wanted
                } else if let since = upgradeWantedSince[group], now - since >= Self.upgradeHold {
                    next = wanted
                } else {
                    if upgradeWantedSince[group] == nil { upgradeWantedSince[group] = now }
                    continue
                }
            }
            upgradeWantedSince[group] = nil
            let stream = next.map { source.layers[$0].streamId }
            chosen[group] = .some(stream)
            if previous == .some(stream) { continue }
            if let stream {
                if case .some(.none) = previous { changes.resumed.append(group) }
                changes.layers[group] = stream
            } else {
                changes.paused.append(group)
            }
        }
        return changes
    }

    /// The layers of one source the allocation steps along, lowest first (`policies.md` §2.6): with three or more
    /// layers of known size and frame rate, they are ordered by `degradation` (maintain frame rate: by pixels, then
    /// frame rate; maintain resolution: by frame rate, rates within 2 fps by pixels; balanced: by bitrate weighted so
    /// that resolution steps come first at low rates and frame rate later), and a layer is left out when its frame
    /// rate is more than 2 fps below, or its pixel count below, the last one kept. Fewer layers, or any of unknown
    /// format, are returned as they are. (The senders in a Chime meeting send at most two layers at a time, all at one
    /// frame rate, so this matters only for senders outside Chime's table.) O(layers log layers).
    static func ladder(_ layers: [Layer], degradation: VideoDegradationPreference) -> [Layer] {
        guard layers.count >= 3, layers.allSatisfy({ $0.width > 0 && $0.height > 0 && $0.framerate > 0 }) else { return layers }
        func pixels(_ layer: Layer) -> Int { layer.width * layer.height }
        let ordered: [Layer]
        switch degradation {
        case .maintainFramerate:
            ordered = layers.sorted { (pixels($0), $0.framerate) < (pixels($1), $1.framerate) }
        case .maintainResolution:
            ordered = layers.sorted { a, b in
                abs(a.framerate - b.framerate) < 2 ? pixels(a) < pixels(b) : a.framerate < b.framerate
            }
        case .balanced:
            let maxFramerate = Double(max(15, layers.map(\.framerate).max() ?? 0))
            let maxPixels = Double(max(320 * 480, layers.map(pixels).max() ?? 0))
            func weight(_ layer: Layer) -> Double {
                let exponent = 5 * Double(layer.framerate) / maxFramerate * pow(4, Double(pixels(layer)) / maxPixels)
                return Double(layer.bitrateKbps) * pow(2, exponent)
            }
            ordered = layers.sorted { weight($0) < weight($1) }
        }
        var kept: [Layer] = []
        for layer in ordered {
            if let last = kept.last, layer.framerate < last.framerate - 2 || pixels(layer) < pixels(last) { continue }
            kept.append(layer)
        }
        return kept
    }

    /// The walk of `policies.md` §2.8 over `sources` within `budgetKbps` (see the type's documentation).
    static func plan(budgetKbps: Int, sources: [Source]) -> Plan {
        var layers: [UInt32: Int?] = [:]
        var nextUpgrade: (groupId: UInt32, layer: Int, deltaKbps: Int)?
        var total = 0
        let tiers = Dictionary(grouping: sources.filter { !$0.layers.isEmpty }, by: \.priority)
        var starved = false
        for priority in tiers.keys.sorted(by: >) {
            let tier = tiers[priority, default: []].sorted { $0.groupId < $1.groupId }
            if starved {
                for source in tier { layers[source.groupId] = .some(nil) }
                continue
            }
            var index: [UInt32: Int] = [:]
            for source in tier {
                let cost = source.layers[0].bitrateKbps
                if total + cost <= budgetKbps {
                    total += cost
                    index[source.groupId] = 0
                } else {
                    layers[source.groupId] = .some(nil)
                    starved = true
                    if nextUpgrade == nil { nextUpgrade = (source.groupId, 0, cost) }
                }
            }
            var upgraded = true
            while upgraded {
                upgraded = false
                for source in tier {
                    guard let at = index[source.groupId], at + 1 < source.layers.count else { continue }
                    let candidate = source.layers[at + 1]
                    guard candidate.bitrateKbps <= source.targetKbps else { continue }
                    let delta = candidate.bitrateKbps - source.layers[at].bitrateKbps
                    if total + delta <= budgetKbps {
                        total += delta
                        index[source.groupId] = at + 1
                        upgraded = true
                    } else {
                        starved = true
                        if nextUpgrade == nil { nextUpgrade = (source.groupId, at + 1, delta) }
                    }
                }
            }
            for (group, at) in index { layers[group] = .some(at) }
        }
        return Plan(layers: layers, nextUpgrade: nextUpgrade)
    }
}
