/// Where V4L2 device nodes are found and opened: the seam the V4L2 camera list (``V4L2Cameras``) reads through. The
/// real one is ``V4L2DeviceDirectory`` (`/dev/video*`); tests pass scripted fakes.
///
/// Threading: may be called from any thread.
protocol V4L2DeviceNodes: Sendable {
    /// The paths of the video nodes, in listing order.
    func nodePaths() -> [String]
    /// Opens the node at `path`; throws its `errno`.
    func open(path: String) throws(V4L2Errno) -> any V4L2Device
}
