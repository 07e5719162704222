/// Lists and chooses the session's audio devices, and switches the session's camera.
///
/// Threading: every method may be called from any thread.
public protocol DeviceController: AnyObject {
    /// The audio devices available now: capture devices (microphones) and playback devices (speakers), real and
    /// virtual.
    func listAudioDevices() -> [MediaDevice]

    /// Makes `mediaDevice` the session's microphone (an input device) or speaker (an output device). A device that
    /// is not listed is rejected with an error log and changes nothing.
    func chooseAudioDevice(mediaDevice: MediaDevice)

    /// Adds an observer of device list changes; it is kept strongly until removed.
    func addDeviceChangeObserver(observer: any DeviceChangeObserver)

    /// Removes an observer added with ``addDeviceChangeObserver(observer:)``.
    func removeDeviceChangeObserver(observer: any DeviceChangeObserver)

    /// Moves the SDK's own camera capture (what `startLocalVideo()` sends) to the next camera
    /// `MediaDevice.listVideoDevices()` lists (front and back with the default virtual cameras). Does nothing while
    /// local video comes from an app's source.
    func switchCamera()

    /// The camera the SDK's own camera capture uses; nil while local video comes from an app's source or after
    /// `stopLocalVideo()`.
    func getActiveCamera() -> MediaDevice?

    /// The audio device chosen last (input or output), or the default input when none was chosen; nil when there is
    /// no device at all.
    func getActiveAudioDevice() -> MediaDevice?
}
