/// A ``VideoCaptureSource`` reading a camera, whose device and format can be chosen before or while it runs.
///
/// On Linux the cameras are those `MediaDevice.listVideoDevices()` lists: the machine's V4L2 cameras and Carillon's
/// virtual cameras (``VirtualVideoDevices``).
public protocol CameraCaptureSource: VideoCaptureSource {
    /// The camera to capture from; setting it while capturing restarts the capture on the new camera.
    var device: MediaDevice? { get set }
    /// Whether the camera's torch (flashlight) is on. No Linux camera has one: setting true snaps back to false.
    var torchEnabled: Bool { get set }
    /// The wanted size and frame rate; the capture uses the camera's closest format. Setting it while capturing
    /// restarts the capture.
    var format: VideoCaptureFormat { get set }
    /// Moves to another camera (see the implementation for which).
    func switchCamera()
}
