/// Told when audio devices appear or disappear.
///
/// Threading: called asynchronously on the session's callback queue, like every other observer.
public protocol DeviceChangeObserver: AnyObject {
    /// The list of audio devices changed (a device was plugged in or removed); `freshAudioDeviceList` is the whole new
    /// list, as ``DeviceController/listAudioDevices()`` would return it.
    func audioDeviceDidChange(freshAudioDeviceList: [MediaDevice])
}
