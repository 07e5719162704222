import ArgumentParser
import Testing

@testable import carillon

/// The command lines the README writes parse as written.
struct CommandLineTests {
    /// `--metrics-port -1` with a space was "Missing value" (only `--metrics-port=-1` parsed).
    @Test func aNegativeMetricsPortParsesWithASpace() throws {
        #expect(try ServeCommand.parse(["--metrics-port", "-1"]).metricsPort == -1)
        #expect(try ServeCommand.parse(["--metrics-port=-1"]).metricsPort == -1)
        #expect(try ServeCommand.parse(["--metrics-port", "0"]).metricsPort == 0)
    }

    /// `--json` is accepted by every `meeting` subcommand (`meeting delete --json` was "Unknown option").
    @Test func everyMeetingCommandTakesJSON() throws {
        #expect(try MeetingCommand.Create.parse(["--json"]).json)
        #expect(try MeetingCommand.Get.parse(["m-1", "--json"]).json)
        #expect(try MeetingCommand.List.parse(["--json"]).json)
        #expect(try MeetingCommand.Delete.parse(["m-1", "--json"]).json)
    }

    /// The four-meetings-at-once command of `BENCHMARKS.md` parses; a CPU list taskset would not take is refused.
    @Test func theParallelVideoBenchParsesAndChecksItsCPUList() throws {
        let bench = try BenchCommand.JanusVideo.parse(["--meetings", "10x10", "--parallel", "4", "--servers", "carillon",
                                                       "--server-cpus", "0,1"])
        #expect(bench.parallel == 4 && bench.serverCPUs == "0,1")
        #expect(throws: (any Error).self) { try BenchCommand.JanusVideo.parse(["--server-cpus", "first"]) }
        #expect(throws: (any Error).self) { try BenchCommand.JanusVideo.parse(["--parallel", "0"]) }
    }
}
