import ArgumentParser
import CarillonProtocol

@main
struct CarillonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carillon",
        abstract: "Carillon: a self-hosted meeting service with a Chime-compatible API.",
        version: CarillonVersion.current
    )
}
