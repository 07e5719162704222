import CarillonMedia
import CarillonRTC
import NIOCore

/// One camera or content share being recorded: VP8 frames reassembled from one simulcast layer's packets (as
/// received, no transcode), their times on the recording's clock, and its files.
///
/// Which layer: the best one the sender sends. Every layer that sends packets is reassembled, so a switch never waits
/// for a key frame that has already gone by: a higher layer's key frame (a layer the sender starts, or one asked for
/// because it flows) takes over at once; a lower layer's key frame is kept on standby with the frames after it, and
/// takes over, those frames first, once the recorded layer has been quiet for ``quietLayerTimeout`` (a sender that
/// changes its layers starts the new ones with a key frame as it stops the old). A new resolution starts new files.
struct RecordedVideoSource {
    /// No frame for this long: the source stopped (camera off, sender gone) and its files are finished.
    static let stallTimeout = TimeAmount.seconds(2)
    /// The recorded layer sent nothing for this long while another layer sends: it stopped.
    static let quietLayerTimeout = TimeAmount.milliseconds(250)
    /// The most a standby layer keeps of its frames after its key frame; older, it is steady and not needed.
    static let standbySpan = TimeAmount.seconds(2)
    /// Least time between two key-frame requests of the recorder's own for one source.
    static let keyFrameRequestInterval = TimeAmount.seconds(1)
    /// A frame this far from where its RTP time puts it re-anchors the stream's times to its arrival.
    static let resyncMilliseconds: Int64 = 1_000

    var files: RecordedStreamFiles
    /// The layer being written; nil until a key frame starts it (and after it went quiet with no standby).
    private(set) var layer: Int?
    private var assemblers: [Int: VP8FrameAssembler] = [:]
    private var lastPacket: [Int: NIODeadline] = [:]
    /// Since when each layer has been sending without a pause of ``quietLayerTimeout``.
    private var sendingSince: [Int: NIODeadline] = [:]
    private var standby: (layer: Int, frames: [(frame: VP8FrameAssembler.Frame, arrival: NIODeadline)])?
    private var lastRequest: NIODeadline?
    private var anchor: (milliseconds: Int64, timestamp: UInt32)?
    private var size: (width: Int, height: Int)?
    private var lastFrameGap: Int64 = 0
    private(set) var lastFrameAt: NIODeadline?

    init(files: RecordedStreamFiles) {
        self.files = files
    }

    /// Takes a packet of layer `index` of the source whose best flowing layer is `best`; returns the layers to ask for
    /// a key frame.
    mutating func receive(_ packet: RTPPacket, layer index: Int, best: Int, now: NIODeadline, clock: RecordingClock,
                          into operations: inout [RecordingFileOperation]) -> [Int] {
        if lastPacket[index].map({ now - $0 >= Self.quietLayerTimeout }) ?? true { sendingSince[index] = now }
        lastPacket[index] = now
        var frames = assemblers[index, default: VP8FrameAssembler()]
            .insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                    payload: packet.payload, now: now)
        if let current = layer, index != current, let first = frames.firstIndex(where: \.isKeyFrame) {
            if index > current {
                // A better layer's key frame: it takes over now.
                switchLayer(to: index)
                frames.removeFirst(first)
            } else {
                standby = (index, [])
                frames.removeFirst(first)
            }
        }
        if layer == nil, let first = frames.firstIndex(where: \.isKeyFrame) {
            switchLayer(to: index)
            frames.removeFirst(first)
        }
        if index == layer {
            write(frames.map { ($0, now) }, clock: clock, into: &operations)
        } else if standby?.layer == index {
            standby!.frames += frames.map { ($0, now) }
            if let oldest = standby!.frames.first?.arrival, now - oldest > Self.standbySpan { standby = nil }
        }

        var wanted: Int?
        if let current = layer, index != current, let heard = lastPacket[current], now - heard >= Self.quietLayerTimeout {
            // The recorded layer stopped while this one sends.
            if let waiting = standby {
                switchLayer(to: waiting.layer)
                write(waiting.frames, clock: clock, into: &operations)
            } else {
                layer = nil
                wanted = best
            }
        } else if layer == nil {
            wanted = best
        } else if best > layer!, let since = sendingSince[best], now - since >= Self.quietLayerTimeout,
                  let heard = lastPacket[best], now - heard < Self.quietLayerTimeout {
            // A better layer has been sending a while and its key frame has not come (it started before the
            // recording, or the recorded layer took over from it): ask for one.
            wanted = best
        }
        if let layer, files.wantsKeyFrame(at: clock.milliseconds(now)) { wanted = layer }
        guard let wanted, lastRequest.map({ now - $0 >= Self.keyFrameRequestInterval }) ?? true else { return [] }
        lastRequest = now
        return [wanted]
    }

    /// When ``tick(now:into:)`` is next due: the stall check, or the recorded layer's assembler asking for a key frame.
    var nextDeadline: NIODeadline? {
        let stall = files.tracks == nil ? nil : lastFrameAt.map { $0 + Self.stallTimeout }
        return stall.earlier(layer.flatMap { assemblers[$0]?.nextDeadline })
    }

    /// Finishes the files of a stalled source; returns the layer to ask for a key frame when the recorded layer's
    /// assembler has waited long enough for one.
    mutating func tick(now: NIODeadline, into operations: inout [RecordingFileOperation]) -> [Int] {
        if files.tracks != nil, let last = lastFrameAt, now - last >= Self.stallTimeout {
            operations += finish()
        }
        guard let layer, assemblers[layer]?.keyFrameRequestDue(now: now) == true else { return [] }
        return [layer]
    }

    /// Finishes the files; the source starts afresh (at a key frame, asked for) with its next packet.
    mutating func finish() -> [RecordingFileOperation] {
        layer = nil
        standby = nil
        assemblers.removeAll()
        lastPacket.removeAll()
        sendingSince.removeAll()
        lastRequest = nil
        anchor = nil
        size = nil
        lastFrameAt = nil
        return files.finish()
    }

    private mutating func switchLayer(to index: Int) {
        layer = index
        standby = nil
        anchor = nil
    }

    private mutating func write(_ frames: [(frame: VP8FrameAssembler.Frame, arrival: NIODeadline)], clock: RecordingClock,
                                into operations: inout [RecordingFileOperation]) {
        for (frame, arrival) in frames {
            if let keySize = frame.keyFrameSize { size = keySize }
            guard let size else { continue }
            let arrived = clock.milliseconds(arrival)
            var time = anchor.map { $0.milliseconds + Int64(Int32(bitPattern: frame.timestamp &- $0.timestamp)) / 90 }
            if time == nil || abs(time! - arrived) > Self.resyncMilliseconds {
                anchor = (arrived, frame.timestamp)
                time = arrived
            }
            if let last = files.lastMilliseconds, time! > last { lastFrameGap = time! - last }
            let tracks = [WebMTrack(number: 1, media: .vp8(width: size.width, height: size.height))]
            files.append(frame.data, tracks: tracks, milliseconds: time!, keyFrame: frame.isKeyFrame,
                         durationMilliseconds: lastFrameGap, into: &operations)
            lastFrameAt = arrival
        }
    }
}
