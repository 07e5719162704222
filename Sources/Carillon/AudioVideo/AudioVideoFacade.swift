/// The `audioVideo` object of a session: the Chime facades Carillon implements so far (session control and video,
/// realtime, active speaker, devices, video tiles, event analytics, content share).
public protocol AudioVideoFacade: AudioVideoControllerFacade, RealtimeControllerFacade, ActiveSpeakerDetectorFacade,
    DeviceController, VideoTileControllerFacade, EventAnalyticsFacade, ContentShareController {}
