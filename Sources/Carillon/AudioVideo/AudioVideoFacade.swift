/// The `audioVideo` object of a session: the Chime facades Carillon implements so far (session control and video,
/// realtime, active speaker, devices, video tiles). Content share and analytics facades join with their issues.
public protocol AudioVideoFacade: AudioVideoControllerFacade, RealtimeControllerFacade, ActiveSpeakerDetectorFacade,
    DeviceController, VideoTileControllerFacade {}
