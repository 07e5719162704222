import Foundation
import Testing

/// Which of the project's modules each shipped target may import (`docs/ARCHITECTURE.md`, "Targets"): the transport
/// knows no meeting and no codec (`CarillonRTC` imports neither `CarillonProtocol` nor `CarillonCodecs`), the SDK and the server never import each other,
/// and the test and benchmark kits (`CarillonMeasurement`) stay out of every shipped library. Read from the sources,
/// so an import that crosses a boundary fails here before it grows roots.
@Suite struct ModuleBoundaryTests {
    /// The project modules each target may import; third-party and system modules are not checked. The CLI
    /// (`carillon`) and the fuzzer may import anything.
    static let allowed: [String: Set<String>] = [
        "CarillonCrypto": ["CCarillonOpenSSL"],
        "CarillonCodecs": ["CCarillonOpus", "CCarillonVPX", "CCarillonYUV"],
        "CarillonProtocol": ["CarillonCrypto"],
        "CarillonRTC": ["CCarillonOpenSSL", "CCarillonSRTP", "CarillonCrypto"],
        "CarillonMedia": ["CarillonCodecs", "CarillonRTC"],
        "CarillonControlClient": ["CarillonProtocol"],
        "Carillon": ["CCarillonALSA", "CCarillonAudioProcessing", "CCarillonV4L2", "CCarillonXCB", "CarillonCodecs",
                     "CarillonMedia", "CarillonProtocol", "CarillonRTC"],
        "CarillonServer": ["CarillonCodecs", "CarillonCrypto", "CarillonMedia", "CarillonProtocol", "CarillonRTC"],
        "CarillonMeasurement": ["CarillonCodecs", "CarillonRTC"],
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// `module: file` for every import of a project module in `target`'s sources.
    static func projectImports(of target: String) throws -> [(module: String, file: String)] {
        let directory = sources.appendingPathComponent(target)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("@") }
                guard words.count >= 2, words[0] == "import", words[1].hasPrefix("Carillon") || words[1].hasPrefix("CCarillon")
                else { continue }
                found.append((words[1], file))
            }
        }
        return found
    }

    @Test(arguments: allowed.keys.sorted())
    func aTargetImportsOnlyWhatItsLayerAllows(target: String) throws {
        let imports = try Self.projectImports(of: target)
        #expect(!imports.isEmpty || target == "CarillonCrypto" || target == "CarillonCodecs", "no sources read for \(target)")
        let crossing = imports.filter { !Self.allowed[target, default: []].contains($0.module) }
            .map { "\($0.file) imports \($0.module)" }
        #expect(crossing.isEmpty, "\(target): \(crossing.joined(separator: "; "))")
    }

    @Test func everyProjectTargetIsListed() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path)
            .filter { $0.hasPrefix("Carillon") }
        let unlisted = Set(targets).subtracting(Self.allowed.keys).subtracting(["CarillonFuzz"])
        #expect(unlisted.isEmpty, "add these targets' rules here and to docs/ARCHITECTURE.md: \(unlisted.sorted())")
    }
}
