import CarillonControlClient
import Foundation

/// A Janus process started by a benchmark inside its network namespace, with a configuration written to a
/// temporary directory: HTTP transport on the namespace's address, AudioBridge and VideoRoom, nothing else.
///
/// Why: the side-by-side benchmark needs Janus as the Debian package ships it, with its defaults or with
/// `general.event_loops` set, and nothing left behind afterwards. Cost: one process; `stop()` waits at most 5 s
/// before SIGKILL. Threading: start and stop from one task.
struct JanusServer {
    /// The Debian package's plugin and transport folders.
    static let libraryFolder = "/usr/lib/x86_64-linux-gnu/janus"
    /// The binary the Debian package installs.
    static let binary = "/usr/bin/janus"

    let process: Process
    let directory: URL
    /// The HTTP API's base URL.
    let endpoint: URL
    var pid: Int32 { process.processIdentifier }

    /// The `janus.jcfg` of the benchmark: ICE on `interface` only, ports from a fixed range, `eventLoops` when
    /// given (without it every handle gets its own GLib thread), only the plugins and transport the bench uses.
    static func configuration(eventLoops: Int?, interface: String, libraryFolder: String = libraryFolder, configsFolder: String) -> String {
        """
        general: {
        \tconfigs_folder = "\(configsFolder)"
        \tplugins_folder = "\(libraryFolder)/plugins"
        \ttransports_folder = "\(libraryFolder)/transports"
        \tdebug_level = \(ProcessInfo.processInfo.environment["CARILLON_JANUS_DEBUG"] == nil ? 3 : 6)
        \tadmin_secret = "carillon-bench"
        \tprotected_folders = []
        \(eventLoops.map { "\tevent_loops = \($0)\n" } ?? "")}
        media: {
        \trtp_port_range = "20000-60000"
        }
        nat: {
        \tice_enforce_list = "\(interface)"
        }
        plugins: {
        \tdisable = "libjanus_echotest.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_nosip.so,libjanus_streaming.so,libjanus_textroom.so,libjanus_videocall.so,libjanus_voicemail.so,libjanus_lua.so,libjanus_duktape.so"
        }
        transports: {
        \tdisable = "libjanus_websockets.so,libjanus_pfunix.so,libjanus_mqtt.so,libjanus_rabbitmq.so,libjanus_nanomsg.so"
        }
        events: {
        \tbroadcast = false
        }
        """
    }

    /// Writes the configuration and starts Janus listening for HTTP on `address`:8088; returns once the API answers.
    static func start(address: String, interface: String, eventLoops: Int?) async throws -> JanusServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-janus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = [
            "janus.jcfg": configuration(eventLoops: eventLoops, interface: interface, configsFolder: directory.path),
            "janus.transport.http.jcfg": """
            general: {
            \tjson = "compact"
            \tbase_path = "/janus"
            \thttp = true
            \tport = 8088
            \tip = "\(address)"
            \thttps = false
            }
            admin: {
            \tadmin_http = false
            }
            """,
            "janus.plugin.audiobridge.jcfg": "general: {\n}\n",
            "janus.plugin.videoroom.jcfg": "general: {\n}\n",
        ]
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-F", directory.path, "-P", "\(libraryFolder)/plugins", "-E", interface, "-o",
                             "-L", directory.appendingPathComponent("janus.log").path, "-N"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = JanusServer(process: process, directory: directory, endpoint: URL(string: "http://\(address):8088/janus")!)
        // Ready when GET /janus/info answers.
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { break }
            if (try? await server.info()) != nil { return server }
            try await Task.sleep(for: .milliseconds(100))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("janus.log"), encoding: .utf8)) ?? ""
        server.stop()
        throw BenchTimeout(what: "Janus to answer on \(server.endpoint) (its log: \(log.suffix(2000)))")
    }

    /// `GET /janus/info`: the server's version string.
    func info() async throws -> String {
        let client = ControlAPIClient(endpoint: endpoint, accessKeyId: "janus", secretAccessKey: "unused")
        let data = try await client.send("GET", "/info")
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["version_string"] as? String ?? "unknown"
    }

    /// Stops Janus (SIGTERM, SIGKILL after 5 s) and removes its configuration.
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["CARILLON_JANUS_DEBUG"] == nil { try? FileManager.default.removeItem(at: directory) }
    }
}
