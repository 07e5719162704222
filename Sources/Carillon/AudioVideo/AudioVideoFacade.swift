/// The `audioVideo` object of a session: the Chime facades Carillon implements so far (session control and realtime).
/// Device, video tile, active speaker, content share and analytics facades join with the media issues.
public protocol AudioVideoFacade: AudioVideoControllerFacade, RealtimeControllerFacade, ActiveSpeakerDetectorFacade,
    DeviceController {}
