import Foundation

/// The video nodes of this machine: `/dev/video<N>` (or those of another directory), by number, opened as
/// ``V4L2FileDevice``s.
///
/// Cost: one directory read per listing. A plain value, safe to share.
struct V4L2DeviceDirectory: V4L2DeviceNodes {
    /// The directory holding the nodes.
    let directory: String

    /// The nodes in `directory` (`/dev` by default).
    init(directory: String = "/dev") { self.directory = directory }

    func nodePaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, "\(directory)/\(name)")
        }
        .sorted { $0.0 < $1.0 }
        .map(\.1)
    }

    func open(path: String) throws(V4L2Errno) -> any V4L2Device { try V4L2FileDevice(path: path) }
}
