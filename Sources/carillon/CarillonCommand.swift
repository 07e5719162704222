import ArgumentParser
import CarillonProtocol

@main
struct CarillonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carillon",
        abstract: "Carillon: a self-hosted meeting service with the Amazon Chime SDK's API.",
        version: CarillonVersion.current,
        subcommands: [ServeCommand.self, MeetingCommand.self, JoinCommand.self, DemoCommand.self, BenchCommand.self,
                      PeerCommand.self]
    )
}
