import Foundation

/// One message Janus sent: a reply to a request or an event from the long poll, parsed without IO.
///
/// Why: the bench's bots wait for session and handle ids, for the `joined` event with the SDP answer, and must tell
/// errors from acks. Cost: one JSON parse. Threading: a value, safe anywhere.
struct JanusReply: Sendable, Equatable {
    /// The kinds of message the bench distinguishes.
    enum Kind: Sendable, Equatable {
        /// `success` with `data.id` (a new session or handle) or plugin data.
        case success
        /// `ack`: the request was taken; its result comes as an event.
        case ack
        /// `event`: a plugin event (`plugindata`), possibly with a JSEP answer.
        case event
        /// `webrtcup`: ICE and DTLS are up on the handle.
        case webrtcUp
        /// `media`: Janus started or stopped receiving a kind of media on the handle.
        case media
        /// `hangup` or `detached`: the handle's PeerConnection is gone.
        case hangup
        /// `keepalive`: an empty long poll.
        case keepalive
        /// `error`, or a plugin event whose data carries `error_code`.
        case error(code: Int, reason: String)
        /// Anything else (`slowlink`, `trickle`, ...), by name.
        case other(String)
    }

    /// What the message is.
    let kind: Kind
    /// The transaction it answers, if any.
    let transaction: String?
    /// `data.id` of a `success` (session or handle id).
    let id: UInt64?
    /// The handle it concerns (`sender`), for events.
    let sender: UInt64?
    /// The plugin data's `id` (a VideoRoom publisher's feed id in its `joined` event).
    let pluginID: UInt64?
    /// The plugin data's `audiobridge`/`videoroom` field (e.g. `joined`, `created`, `event`).
    let pluginEvent: String?
    /// The SDP of a JSEP attached to the event.
    let sdp: String?
    /// The JSEP type (`answer` or `offer`).
    let sdpType: String?

    /// Parses every message of a reply body: one object, or the array a long poll with `maxev` returns.
    static func parseAll(_ data: Data) throws(JanusReplyError) -> [JanusReply] {
        guard let json = try? JSONSerialization.jsonObject(with: data) else { throw .notJSON(String(decoding: data.prefix(200), as: UTF8.self)) }
        if let array = json as? [[String: Any]] { return array.map(JanusReply.init(object:)) }
        if let object = json as? [String: Any] { return [JanusReply(object: object)] }
        throw .notJSON(String(decoding: data.prefix(200), as: UTF8.self))
    }

    /// Parses one object.
    init(object: [String: Any]) {
        let name = object["janus"] as? String ?? ""
        transaction = object["transaction"] as? String
        id = Self.number((object["data"] as? [String: Any])?["id"])
        sender = Self.number(object["sender"])
        let plugin = (object["plugindata"] as? [String: Any])?["data"] as? [String: Any]
        pluginID = Self.number(plugin?["id"])
        pluginEvent = (plugin?["audiobridge"] ?? plugin?["videoroom"]) as? String
        let jsep = object["jsep"] as? [String: Any]
        sdp = jsep?["sdp"] as? String
        sdpType = jsep?["type"] as? String
        if let error = object["error"] as? [String: Any] {
            kind = .error(code: Int(Self.number(error["code"]) ?? 0), reason: error["reason"] as? String ?? "")
        } else if let code = Self.number(plugin?["error_code"]) {
            kind = .error(code: Int(code), reason: plugin?["error"] as? String ?? "")
        } else {
            kind = switch name {
            case "success": .success
            case "ack": .ack
            case "event": .event
            case "webrtcup": .webrtcUp
            case "media": .media
            case "hangup", "detached": .hangup
            case "keepalive": .keepalive
            default: .other(name)
            }
        }
    }

    private static func number(_ value: Any?) -> UInt64? {
        switch value {
        case let number as NSNumber: number.uint64Value
        case let text as String: UInt64(text)
        default: nil
        }
    }
}

/// A Janus reply the bench could not read or that reported a failure.
struct JanusReplyError: Error, CustomStringConvertible {
    let description: String
    static func notJSON(_ text: String) -> JanusReplyError { JanusReplyError(description: "Janus sent no JSON object: \(text)") }
}
