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
}
