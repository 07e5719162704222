import Carillon
import CarillonCodecs
import Foundation
import NIOCore
import Testing

/// Simulcast and the server's per-receiver allocation on real sockets: one 640x360 simulcast camera (with three
/// participants it sends low at 160x90 and hi at 640x360, `policies.md` §3.1) and two viewers behind `UDPRelay`, one
/// of which gets a capped downlink for a while. How fast the layers switch is measured in virtual time
/// (`VirtualPriorityMeetingTests`, `VirtualSimulcastMeetingTests`); here the criteria are what must stay true on a
/// loaded machine too: the capped viewer's pictures shrink and grow back, the other viewer's never shrink.
@Suite(.serialized) struct SimulcastEndToEndTests {
    typealias Bot = VideoSubscriptionGuideEndToEndTests.Bot

    /// The widths `viewer` decoded of `attendeeId`'s camera, one entry per change.
    static func widths(_ viewer: Bot, of attendeeId: String) -> [Int] {
        viewer.tiles.tiles(of: attendeeId).flatMap(\.widths)
    }

    @Test func aViewerBehindACappedLinkDropsToTheLowLayerAndRecoversWhileTheOtherStaysOnTop() async throws {
        let relay = try await UDPRelay.start()
        let harness = try await ServerHarness.start(publicMediaPort: relay.port)
        defer { Task { await harness.stop(); await relay.close() } }
        try await relay.forward(to: SocketAddress(ipAddress: "127.0.0.1", port: Int(harness.server.media.port.localAddress.port)))
        let meeting = try await harness.createMeeting()

        let camera = try await Bot.join(harness, meeting, name: "camera", color: .red, width: 640, height: 360)
        let free = try await Bot.join(harness, meeting, name: "free", color: nil)
        // The relay's clients in the order they came, one socket per session: the camera, then the free viewer.
        let known = try await relay.clientAddresses()
        try #require(known.count == 2)
        let freeAddress = known[1]
        let capped = try await Bot.join(harness, meeting, name: "capped", color: nil)
        // The capped viewer's address: the one that came with its session.
        let addresses = try await relay.clientAddresses()
        let cappedAddress = try #require(addresses.first { !known.contains($0) })
        let sender = camera.attendeeId

        // Both viewers get the top layer first, and the camera's uplink estimate grows until hi runs at about its
        // 1.2 Mbit/s: the free viewer's downlink carries more than 900 kbit/s. (Capped while hi still ramps up
        // below the cap, the capped viewer would keep it: that is the allocator's hold for a busy receiver, which
        // needs loss before it lowers anything a link carries.)
        for viewer in [free, capped] {
            try await viewer.tiles.wait("\(viewer.probe.name) decodes 640x360", timeout: .seconds(20)) { _ in
                Self.widths(viewer, of: sender).last == 640
            }
        }
        var freeRate = 0
        let rampDeadline = ContinuousClock.now + .seconds(40)
        while freeRate < 900_000 {
            guard ContinuousClock.now < rampDeadline else {
                Issue.record("the free viewer's downlink stayed at \(freeRate) bit/s")
                return
            }
            freeRate = try await relay.downlinkBitrate(of: freeAddress)
        }

        // 600 kbit/s into the capped viewer: hi (about 1.2 Mbit/s) does not fit, low (about 300 kbit/s) does. Its
        // pictures shrink to low's width.
        try await relay.capDownlink(of: cappedAddress, bitsPerSecond: 600_000)
        let cappedAt = ContinuousClock.now
        try await capped.tiles.wait("capped drops to 160x90", timeout: .seconds(20)) { _ in
            Self.widths(capped, of: sender).last == 160
        }
        let lowered = ContinuousClock.now - cappedAt
        let framesAtLow = VideoSubscriptionGuideEndToEndTests.frames(capped, of: sender)
        try await capped.tiles.wait("capped plays on at 160x90") { _ in
            VideoSubscriptionGuideEndToEndTests.frames(capped, of: sender) >= framesAtLow + 15
        }

        let tailDrops = try await relay.tailDrops(of: cappedAddress)

        // The cap lifted: the server's probes find the bandwidth again and hi comes back.
        try await relay.capDownlink(of: cappedAddress, bitsPerSecond: nil)
        let liftedAt = ContinuousClock.now
        try await capped.tiles.wait("capped back at 640x360", timeout: .seconds(40)) { _ in
            Self.widths(capped, of: sender).last == 640
        }
        let raised = ContinuousClock.now - liftedAt

        // Once on the top layer, the free viewer stayed there: it never decoded a smaller picture again.
        let freeWidths = Self.widths(free, of: sender)
        #expect(Array(freeWidths.drop { $0 != 640 }) == [640], "free viewer's widths: \(freeWidths)")
        print("capped viewer: lowered after \(lowered), back on hi \(raised) after the cap lifted; widths \(Self.widths(capped, of: sender)), \(tailDrops) datagrams dropped at the cap")

        for bot in [camera, free, capped] { try await bot.leave() }
    }
}
