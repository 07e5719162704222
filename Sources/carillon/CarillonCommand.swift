import ArgumentParser
import CarillonControlClient
import CarillonProtocol
import Foundation

@main
struct CarillonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carillon",
        abstract: "Carillon: a self-hosted meeting service with the Amazon Chime SDK's API.",
        version: "\(CarillonVersion.current) (commit \(BuildCommit.hash)\(BuildCommit.dirty ? ", with uncommitted changes" : ""))",
        subcommands: [ServeCommand.self, MeetingCommand.self, AttendeeCommand.self, NodesCommand.self, JoinCommand.self, DemoCommand.self, BenchCommand.self,
                      PeerCommand.self]
    )

    /// Runs the command; a control-API failure ends the process with its own exit status
    /// (``ControlAPIClientError/exitCode``) after one line saying what went wrong and what to do.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as ControlAPIClientError {
            var line = "Error: \(error)\n"
            if error.status == 403 || error.status == 401 {
                line += "(the key pair comes from CARILLON_ACCESS_KEY_ID and CARILLON_SECRET_ACCESS_KEY, "
                    + "--access-key-id/--secret-access-key, or --data-dir of a local server)\n"
            }
            FileHandle.standardError.write(Data(line.utf8))
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
