import ArgumentParser
import CarillonControlClient
import CarillonProtocol
import Foundation

/// `carillon nodes`: the cluster's nodes, through Carillon's signed `GET /carillon/nodes`.
struct NodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nodes",
        abstract: "List the cluster's nodes: id, URL, media address, state (serving, draining, dead), meetings and attendees hosted, load, last heartbeat."
    )
    @OptionGroup var options: EndpointOptions
    @Flag(help: "Print the API's JSON response.") var json = false

    func run() async throws {
        let data = try await options.client().send("GET", "/carillon/nodes")
        if json { return printJSON(data) }
        let nodes = try JSONDecoder().decode(ControlAPI.NodesResponse.self, from: data).nodes
        if nodes.isEmpty { return print("no nodes") }
        let header = ["NODE", "URL", "MEDIA", "STATE", "MEETINGS", "ATTENDEES", "LOAD", "LAST HEARTBEAT"]
        let rows = nodes.map { node in
            [node.nodeId, node.url, node.mediaAddress, node.state, String(node.meetings), String(node.attendees),
             String(format: "%.0f %%", node.load * 100), node.lastHeartbeat]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces))
        }
    }
}
