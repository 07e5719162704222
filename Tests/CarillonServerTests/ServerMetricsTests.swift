import CarillonRTC
import Testing

@testable import CarillonServer

/// The metrics' arithmetic and the `/proc/net/udp` reader, without a server.
struct ServerMetricsTests {
    func reading(received: Int, ticks: Int, kernelDrops: Int?) -> ServerMetrics.Reading {
        var port = MediaPortStatistics()
        port.datagramsReceived = received
        port.bytesReceived = received * 100
        var media = MediaTotals()
        media.mixerTicks = ticks
        media.mixerTickNanoseconds = Int64(ticks) * 50_000
        return ServerMetrics.Reading(meetings: 2, liveMeetings: 1, attendees: 3, port: port, media: media,
                                     kernelDrops: kernelDrops)
    }

    func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func runningTotalsBecomeCountersThatNeverGoBackwards() {
        let metrics = ServerMetrics()
        let zero = metrics.render(reading(received: 0, ticks: 0, kernelDrops: nil))
        #expect(value(zero, #"carillon_media_datagrams_total{direction="in"}"#) == 0)
        #expect(value(zero, #"carillon_media_datagrams_dropped_total{cause="unrouted"}"#) == 0)
        _ = metrics.render(reading(received: 10, ticks: 5, kernelDrops: 1))
        let text = metrics.render(reading(received: 25, ticks: 7, kernelDrops: 4))
        #expect(value(text, #"carillon_media_datagrams_total{direction="in"}"#) == 25)
        #expect(value(text, #"carillon_media_bytes_total{direction="in"}"#) == 2500)
        #expect(value(text, "carillon_mixer_ticks_total") == 7)
        #expect(value(text, #"carillon_media_datagrams_dropped_total{cause="kernel_receive_buffer"}"#) == 4)
        #expect(value(text, "carillon_meetings") == 2 && value(text, "carillon_attendees") == 3)
        // A reading behind the last one (two scrapes crossing) adds nothing.
        let behind = metrics.render(reading(received: 20, ticks: 6, kernelDrops: nil))
        #expect(value(behind, #"carillon_media_datagrams_total{direction="in"}"#) == 25)
        #expect(value(behind, #"carillon_media_datagrams_dropped_total{cause="kernel_receive_buffer"}"#) == 4)
    }

    @Test func requestsAreCountedByOperationAndStatus() {
        let metrics = ServerMetrics()
        metrics.controlAPIRequest(operation: "CreateMeeting", status: 200)
        metrics.controlAPIRequest(operation: "CreateMeeting", status: 200)
        metrics.controlAPIRequest(operation: "unknown", status: 403)
        let text = metrics.render(reading(received: 0, ticks: 0, kernelDrops: nil))
        #expect(value(text, #"carillon_control_api_requests_total{operation="CreateMeeting",status="200"}"#) == 2)
        #expect(value(text, #"carillon_control_api_requests_total{operation="unknown",status="403"}"#) == 1)
    }

    /// A cluster's node labels every sample with its id, with or without labels of its own, and leaves comments.
    @Test func aClusterNodeLabelsEverySample() {
        let metrics = ServerMetrics()
        metrics.controlAPIRequest(operation: "GetMeeting", status: 200)
        let text = ServerMetrics.labelled(metrics.render(reading(received: 3, ticks: 0, kernelDrops: nil)),
                                          node: #"node-"a""#)
        #expect(value(text, #"carillon_meetings{node="node-\"a\""}"#) == 2)
        #expect(value(text, #"carillon_media_datagrams_total{node="node-\"a\"",direction="in"}"#) == 3)
        #expect(value(text, #"carillon_control_api_requests_total{node="node-\"a\"",operation="GetMeeting",status="200"}"#) == 1)
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!samples.isEmpty && samples.allSatisfy { $0.contains(#"node="node-\"a\"""#) })
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE carillon_meetings ") }.count == 1)
        #expect(ServerMetrics.labelled(#"x{} 1"#, node: "n") == #"x{node="n"} 1"#)
    }

    @Test func kernelDropsAreReadFromTheSocketsLine() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
             1234: 0100007F:0D96 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 55555 2 0000000000000000 17
             1235: 0100007F:0D97 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 55556 2 0000000000000000 3
            """
        #expect(KernelUDPDrops.parse(table, port: 0x0D96) == 17)
        #expect(KernelUDPDrops.parse(table, port: 9) == nil)
        #expect(KernelUDPDrops.read(port: 9, tables: ["/nonexistent"]) == nil)
    }

    @Test func operationsAreNamedAsChimeNamesThem() {
        #expect(ControlAPIOperation(method: "POST", segments: ["meetings"], operation: nil) == .createMeeting)
        #expect(ControlAPIOperation(method: "POST", segments: ["meetings", "m", "attendees"], operation: "batch-create")
                == .batchCreateAttendee)
        #expect(ControlAPIOperation(method: "GET", segments: ["nothing"], operation: nil) == nil)
    }
}
