import Foundation

/// The messages of Janus's HTTP JSON API that the Janus benchmarks speak, built and parsed without IO.
///
/// Why: the bench's bots drive Janus (the side-by-side anchor of issue 15) through one session, one plugin handle per
/// bot and one long poll for events; keeping the JSON here lets unit tests pin the protocol without a Janus.
/// Cost: one small JSON document per call. Threading: pure functions, safe anywhere.
enum JanusAPI {
    /// The AudioBridge plugin's package name.
    static let audioBridge = "janus.plugin.audiobridge"
    /// The VideoRoom plugin's package name.
    static let videoRoom = "janus.plugin.videoroom"

    /// `create`: a new session.
    static func createSession(transaction: String) -> Data {
        encode(["janus": "create", "transaction": transaction])
    }

    /// `attach`: a handle on `plugin` in the session the request is posted to.
    static func attach(plugin: String, transaction: String) -> Data {
        encode(["janus": "attach", "plugin": plugin, "transaction": transaction])
    }

    /// A plugin `message` with `body` and, when given, an SDP offer or answer (non-trickle: it carries its
    /// candidates).
    static func message(body: [String: Any], offer: String? = nil, answer: String? = nil, transaction: String) -> Data {
        var object: [String: Any] = ["janus": "message", "body": body, "transaction": transaction]
        if let offer { object["jsep"] = ["type": "offer", "sdp": offer, "trickle": false] }
        if let answer { object["jsep"] = ["type": "answer", "sdp": answer, "trickle": false] }
        return encode(object)
    }

    /// The AudioBridge `create` request body: a 48 kHz room that reads the audio-level extension.
    static func createAudioRoom(_ room: UInt64) -> [String: Any] {
        ["request": "create", "room": room, "sampling_rate": 48_000, "audiolevel_ext": true, "permanent": false]
    }

    /// The AudioBridge `join` request body.
    static func joinAudioRoom(_ room: UInt64, display: String, muted: Bool) -> [String: Any] {
        ["request": "join", "room": room, "display": display, "muted": muted]
    }

    /// The VideoRoom `create` request body: a VP8 room for `publishers` publishers, no bitrate cap (REMB 0), no
    /// periodic key-frame requests.
    static func createVideoRoom(_ room: UInt64, publishers: Int) -> [String: Any] {
        ["request": "create", "room": room, "publishers": publishers, "videocodec": "vp8", "bitrate": 0,
         "fir_freq": 0, "notify_joining": false, "permanent": false]
    }

    /// The VideoRoom `join` request body of a publisher (its `joined` event carries the feed id).
    static func joinVideoPublisher(_ room: UInt64, display: String) -> [String: Any] {
        ["request": "join", "ptype": "publisher", "room": room, "display": display]
    }

    /// The VideoRoom `publish` request body (sent with the publisher's offer).
    static func publishVideo() -> [String: Any] {
        ["request": "publish"]
    }

    /// The VideoRoom `join` request body of a subscriber to `feeds` (Janus answers with an offer, one m-line per feed).
    static func joinVideoSubscriber(_ room: UInt64, feeds: [UInt64]) -> [String: Any] {
        ["request": "join", "ptype": "subscriber", "room": room, "streams": feeds.map { ["feed": $0] }]
    }

    /// The VideoRoom `start` request body (sent with the subscriber's answer).
    static func startSubscription() -> [String: Any] {
        ["request": "start"]
    }

    /// `destroy`: ends the session and every handle in it.
    static func destroySession(transaction: String) -> Data {
        encode(["janus": "destroy", "transaction": transaction])
    }

    private static func encode(_ object: [String: Any]) -> Data {
        // The objects above hold only strings, numbers, booleans and nested dictionaries: serialisation cannot fail.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
