import NIOCore

/// What the meetings of one event loop did to media, summed over every meeting that ever ran there: mixer ticks and
/// their cost, packets routed and their cost, and datagrams their connections dropped.
///
/// One instance per event loop (see ``MediaCounterDirectory``), written only on that loop by plain additions: no
/// lock, no atomic, no allocation on the media path. A scrape reads it with one hop to the loop. Because it outlives
/// the meetings, the totals never go backwards when a meeting ends.
///
/// Threading: confined to its loop; `@unchecked Sendable` so the directory can hand it there.
final class MediaLoopCounters: @unchecked Sendable {
    let eventLoop: any EventLoop
    var totals = MediaTotals()
    /// Datagrams dropped by the live connections of each meeting, asked for at scrape time (ended connections are
    /// already in `totals`). Keyed by the meeting's media object.
    var liveDrops: [ObjectIdentifier: () -> Int] = [:]

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// The totals, with the drops of connections still open (on the loop).
    func snapshot() -> MediaTotals {
        eventLoop.preconditionInEventLoop()
        var snapshot = totals
        for drops in liveDrops.values { snapshot.datagramsDroppedByConnections += drops() }
        return snapshot
    }
}
