import Foundation

/// The messages of Janus's HTTP JSON API that the Janus benchmarks speak, built and parsed without IO.
///
/// Why: the bench's bots drive Janus (the side-by-side anchor of issue 15) through one session, one plugin handle per
/// bot and one long poll for events; keeping the JSON here lets unit tests pin the protocol without a Janus.
/// Cost: one small JSON document per call. Threading: pure functions, safe anywhere.
enum JanusAPI {
    /// The AudioBridge plugin's package name.
    static let audioBridge = "janus.plugin.audiobridge"

    /// `create`: a new session.
    static func createSession(transaction: String) -> Data {
        encode(["janus": "create", "transaction": transaction])
    }

    /// `attach`: a handle on `plugin` in the session the request is posted to.
    static func attach(plugin: String, transaction: String) -> Data {
        encode(["janus": "attach", "plugin": plugin, "transaction": transaction])
    }

    /// A plugin `message` with `body` and, when given, an SDP offer (non-trickle: the offer carries its candidates).
    static func message(body: [String: Any], offer: String? = nil, transaction: String) -> Data {
        var object: [String: Any] = ["janus": "message", "body": body, "transaction": transaction]
        if let offer { object["jsep"] = ["type": "offer", "sdp": offer, "trickle": false] }
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

    /// `destroy`: ends the session and every handle in it.
    static func destroySession(transaction: String) -> Data {
        encode(["janus": "destroy", "transaction": transaction])
    }

    private static func encode(_ object: [String: Any]) -> Data {
        // The objects above hold only strings, numbers, booleans and nested dictionaries: serialisation cannot fail.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
