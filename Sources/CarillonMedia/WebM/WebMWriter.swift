/// Writes a WebM file (the Matroska subset browsers and players read) from VP8 frames and Opus packets as they come,
/// sans-IO: it returns the bytes to append to the file, and at ``finish()`` the last bytes and the few patches that
/// complete the header (the segment's size, the duration, where the cues are).
///
/// Layout: the EBML header, a Segment of unknown size, a SeekHead, Info, Tracks, then Clusters (a new one at each key
/// frame of the first video track and at least every ``clusterSpanMilliseconds``; audio-only files cut every span),
/// each written whole once the next starts, then Cues (a cue point per cluster start) and the patches. A file whose
/// writer never finished (a killed process) still plays: every cluster in it is complete and the header is valid
/// (the size "unknown", no duration, no cue position: the SeekHead and Info reserve their room with Void elements
/// that ``finish()`` overwrites).
///
/// Timestamps are milliseconds from the file's start (the Segment's timecode scale is 1 ms), never going back within a
/// track. Costs: each frame is copied into the open cluster, whose bytes are kept until it closes (a cluster of 5 s
/// of 600 kbit/s video is about 375 KB), and once more into the bytes handed out then. Threading: a value; one owner
/// at a time.
public struct WebMWriter: Sendable {
    /// Bytes to overwrite at `offset` of the file (the file is at least that long by then).
    public struct Patch: Sendable, Equatable {
        /// Where in the file, from its first byte.
        public var offset: Int
        /// What goes there (as many bytes as were reserved).
        public var bytes: [UInt8]
    }

    /// What ``finish()`` asks of the file: `appended` at its end, then each of `patches`.
    public struct Ending: Sendable, Equatable {
        /// The last cluster and the cues.
        public var appended: [UInt8]
        /// The segment's size, the duration and the cues' position, over bytes the header reserved.
        public var patches: [Patch]
    }

    /// The longest a cluster spans, ms: a new one starts after it even without a key frame.
    public static let clusterSpanMilliseconds: Int64 = 5_000

    /// The tracks, as given.
    public let tracks: [WebMTrack]
    /// The file's first bytes: the EBML header, the Segment's start, SeekHead, Info and Tracks.
    public let header: [UInt8]

    private let segmentSizeOffset: Int
    private let segmentDataStart: Int
    /// Where the Void reserved for the Cues' seek entry, and for the Duration, start.
    private let cuesSeekOffset: Int
    private let durationOffset: Int
    /// Bytes handed out so far: the header and every closed cluster.
    private var written: Int
    /// The open cluster's timecode and blocks (its Timecode element included), not yet handed out.
    private var clusterTimecode: Int64?
    private var cluster: [UInt8] = []
    private var lastTimestamp: [Int: Int64] = [:]
    /// The cue points so far (all on ``cueTrack``): a cluster's start time and its position in the segment.
    private var cuePoints: [(milliseconds: Int64, clusterPosition: Int)] = []
    /// The latest end of a frame seen, ms: the file's duration.
    private var end: Int64 = 0
    private var isFinished = false
    /// The track whose key frames start clusters and are cued: the first video track, else the first track.
    private let cueTrack: Int

    /// A writer of a file with `tracks` (at least one; numbers 1-127, distinct).
    public init(tracks: [WebMTrack]) throws(WebMWriterError) {
        guard !tracks.isEmpty else { throw .invalidTracks("a file needs a track") }
        guard tracks.allSatisfy({ (1...127).contains($0.number) }) else { throw .invalidTracks("numbers must be 1-127") }
        guard Set(tracks.map(\.number)).count == tracks.count else { throw .invalidTracks("numbers must differ") }
        self.tracks = tracks
        cueTrack = (tracks.first { $0.isVideo } ?? tracks[0]).number

        var bytes = EBML.element(ID.ebml, EBML.unsigned(ID.ebmlVersion, 1) + EBML.unsigned(ID.ebmlReadVersion, 1)
            + EBML.unsigned(ID.ebmlMaxIDLength, 4) + EBML.unsigned(ID.ebmlMaxSizeLength, 8)
            + EBML.string(ID.docType, "webm") + EBML.unsigned(ID.docTypeVersion, 4)
            + EBML.unsigned(ID.docTypeReadVersion, 2))
        bytes += EBML.id(ID.segment)
        segmentSizeOffset = bytes.count
        bytes += EBML.unknownSize
        segmentDataStart = bytes.count

        let info = Self.info()
        let trackList = Self.trackList(tracks)
        // The SeekHead's positions are 8 bytes wide, so its size does not depend on them.
        let seekHeadSize = Self.seekHead(infoPosition: 0, tracksPosition: 0).count
        let seekHead = Self.seekHead(infoPosition: seekHeadSize, tracksPosition: seekHeadSize + info.bytes.count)
        cuesSeekOffset = segmentDataStart + seekHead.count - Self.seekEntrySize
        durationOffset = segmentDataStart + seekHeadSize + info.durationOffset
        bytes += seekHead + info.bytes + trackList
        header = bytes
        written = bytes.count
    }

    /// Adds one frame of `track` at `milliseconds` from the file's start, lasting `durationMilliseconds` (for the
    /// file's duration; 0 when unknown); returns the bytes of the cluster this frame closed, to append to the file
    /// (empty most of the time). A key frame of the cued track starts a new cluster.
    public mutating func append(_ frame: [UInt8], track: Int, milliseconds: Int64, keyFrame: Bool,
                                durationMilliseconds: Int64 = 0) throws(WebMWriterError) -> [UInt8] {
        guard !isFinished else { throw .finished }
        guard let entry = tracks.first(where: { $0.number == track }) else { throw .unknownTrack(track) }
        guard milliseconds >= 0, milliseconds >= lastTimestamp[track] ?? 0 else {
            throw .timestampWentBack(track: track, milliseconds: milliseconds)
        }
        lastTimestamp[track] = milliseconds
        end = max(end, milliseconds + max(0, durationMilliseconds))
        var closed: [UInt8] = []
        let startsCluster: Bool
        if let timecode = clusterTimecode {
            let relative = milliseconds - timecode
            // The span is well inside a block's 16-bit relative time; a frame of another track from before the
            // cluster's start can only be a little before it, but never below the 16 bits either.
            // Only a video key frame starts one: every audio frame is a key frame, and a cluster each would bloat
            // the file and its cues.
            startsCluster = (track == cueTrack && keyFrame && entry.isVideo) || relative >= Self.clusterSpanMilliseconds
                || relative < Int64(Int16.min)
        } else {
            startsCluster = true
        }
        if startsCluster {
            closed = closeCluster()
            clusterTimecode = milliseconds
            cluster = EBML.unsigned(ID.timecode, UInt64(milliseconds))
            // A cue only where a player can start: a key frame of the cued track (any frame of an audio-only file).
            if track == cueTrack, keyFrame || !entry.isVideo {
                // `written` already counts the cluster just closed: the new one starts there.
                cuePoints.append((milliseconds, written - segmentDataStart))
            }
        }
        let relative = Int16(truncatingIfNeeded: milliseconds - (clusterTimecode ?? milliseconds))
        // The SimpleBlock's head: track number, relative time, flags (audio frames are all key frames: each decodes on
        // its own after the pre-roll). Appended piece by piece, so the frame is copied once, into the cluster.
        let trackNumber = EBML.size(track)
        cluster += EBML.id(ID.simpleBlock)
        cluster += EBML.size(trackNumber.count + 3 + frame.count)
        cluster += trackNumber
        cluster += [UInt8(truncatingIfNeeded: UInt16(bitPattern: relative) >> 8), UInt8(truncatingIfNeeded: relative),
                    keyFrame || !entry.isVideo ? 0x80 : 0x00]
        cluster += frame
        return closed
    }

    /// Ends the file: the open cluster and the cues to append, and the patches that give the header the segment's
    /// size, the duration and the cues' position. Nothing can be added after.
    public mutating func finish() -> Ending {
        guard !isFinished else { return Ending(appended: [], patches: []) }
        isFinished = true
        var appended = closeCluster()
        let cuesPosition = written - segmentDataStart
        var points: [UInt8] = []
        for cue in cuePoints {
            let position = EBML.element(ID.cueTrackPositions, EBML.unsigned(ID.cueTrack, UInt64(cueTrack))
                + EBML.unsigned(ID.cueClusterPosition, UInt64(cue.clusterPosition)))
            points += EBML.element(ID.cuePoint, EBML.unsigned(ID.cueTime, UInt64(cue.milliseconds)) + position)
        }
        if !cuePoints.isEmpty {
            let cues = EBML.element(ID.cues, points)
            appended += cues
            written += cues.count
        }
        var patches = [Patch(offset: segmentSizeOffset, bytes: EBML.size(written - segmentDataStart, width: 8)),
                       Patch(offset: durationOffset, bytes: EBML.float(ID.duration, Double(end)))]
        if !cuePoints.isEmpty {
            patches.append(Patch(offset: cuesSeekOffset, bytes: Self.seekEntry(ID.cues, position: cuesPosition)))
        }
        return Ending(appended: appended, patches: patches)
    }

    /// The open cluster as bytes to append (empty when none is open); it is then closed.
    private mutating func closeCluster() -> [UInt8] {
        guard clusterTimecode != nil else { return [] }
        let bytes = EBML.id(ID.cluster) + EBML.size(cluster.count) + cluster
        written += bytes.count
        cluster = []
        clusterTimecode = nil
        return bytes
    }

    // MARK: Header elements

    /// One Seek entry is this long with an 8-byte position and a 4-byte id: 2 + 1 + (7 + 11).
    private static let seekEntrySize = 21
    /// A Duration element is this long (2-byte id, 1-byte size, 8-byte float).
    private static let durationSize = 11

    private static func seekEntry(_ id: UInt32, position: Int) -> [UInt8] {
        EBML.element(ID.seek, EBML.element(ID.seekID, EBML.id(id))
            + EBML.element(ID.seekPosition, EBML.unsignedBytes(UInt64(position), width: 8)))
    }

    /// A Void element `size` bytes long in all (at least 2).
    private static func void(size: Int) -> [UInt8] {
        EBML.id(ID.void) + EBML.size(size - 2, width: 1) + [UInt8](repeating: 0, count: size - 2)
    }

    /// The SeekHead: Info and Tracks, and room for the Cues' entry.
    private static func seekHead(infoPosition: Int, tracksPosition: Int) -> [UInt8] {
        EBML.element(ID.seekHead, seekEntry(ID.info, position: infoPosition)
            + seekEntry(ID.tracks, position: tracksPosition) + void(size: seekEntrySize))
    }

    /// The Info element, with room for the Duration, and where that room starts within it.
    private static func info() -> (bytes: [UInt8], durationOffset: Int) {
        let head = EBML.unsigned(ID.timecodeScale, 1_000_000) + EBML.string(ID.muxingApp, "Carillon")
            + EBML.string(ID.writingApp, "Carillon")
        let body = head + void(size: durationSize)
        let bytes = EBML.element(ID.info, body)
        return (bytes, bytes.count - durationSize)
    }

    private static func trackList(_ tracks: [WebMTrack]) -> [UInt8] {
        var entries: [UInt8] = []
        for track in tracks {
            var entry = EBML.unsigned(ID.trackNumber, UInt64(track.number)) + EBML.unsigned(ID.trackUID, UInt64(track.number))
            entry += EBML.unsigned(ID.trackType, track.isVideo ? 1 : 2) + EBML.unsigned(ID.flagLacing, 0)
            if let name = track.name { entry += EBML.string(ID.name, name) }
            entry += EBML.string(ID.codecID, track.codecId)
            if let codecPrivate = track.codecPrivate { entry += EBML.element(ID.codecPrivate, codecPrivate) }
            switch track.media {
            case .vp8(let width, let height):
                entry += EBML.element(ID.video, EBML.unsigned(ID.pixelWidth, UInt64(max(0, width)))
                    + EBML.unsigned(ID.pixelHeight, UInt64(max(0, height))))
            case .opus(let channels, let preSkip):
                entry += EBML.unsigned(ID.codecDelay, UInt64(max(0, preSkip)) * 1_000_000_000 / 48_000)
                entry += EBML.unsigned(ID.seekPreRoll, 80_000_000)
                entry += EBML.element(ID.audio, EBML.float(ID.samplingFrequency, 48_000)
                    + EBML.unsigned(ID.channels, UInt64(channels)))
            }
            entries += EBML.element(ID.trackEntry, entry)
        }
        return EBML.element(ID.tracks, entries)
    }

    /// The Matroska element ids used (RFC 9559).
    private enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3
        static let ebmlVersion: UInt32 = 0x4286
        static let ebmlReadVersion: UInt32 = 0x42F7
        static let ebmlMaxIDLength: UInt32 = 0x42F2
        static let ebmlMaxSizeLength: UInt32 = 0x42F3
        static let docType: UInt32 = 0x4282
        static let docTypeVersion: UInt32 = 0x4287
        static let docTypeReadVersion: UInt32 = 0x4285
        static let void: UInt32 = 0xEC
        static let segment: UInt32 = 0x1853_8067
        static let seekHead: UInt32 = 0x114D_9B74
        static let seek: UInt32 = 0x4DBB
        static let seekID: UInt32 = 0x53AB
        static let seekPosition: UInt32 = 0x53AC
        static let info: UInt32 = 0x1549_A966
        static let timecodeScale: UInt32 = 0x2A_D7B1
        static let muxingApp: UInt32 = 0x4D80
        static let writingApp: UInt32 = 0x5741
        static let duration: UInt32 = 0x4489
        static let tracks: UInt32 = 0x1654_AE6B
        static let trackEntry: UInt32 = 0xAE
        static let trackNumber: UInt32 = 0xD7
        static let trackUID: UInt32 = 0x73C5
        static let trackType: UInt32 = 0x83
        static let flagLacing: UInt32 = 0x9C
        static let name: UInt32 = 0x536E
        static let codecID: UInt32 = 0x86
        static let codecPrivate: UInt32 = 0x63A2
        static let codecDelay: UInt32 = 0x56AA
        static let seekPreRoll: UInt32 = 0x56BB
        static let video: UInt32 = 0xE0
        static let pixelWidth: UInt32 = 0xB0
        static let pixelHeight: UInt32 = 0xBA
        static let audio: UInt32 = 0xE1
        static let samplingFrequency: UInt32 = 0xB5
        static let channels: UInt32 = 0x9F
        static let cluster: UInt32 = 0x1F43_B675
        static let timecode: UInt32 = 0xE7
        static let simpleBlock: UInt32 = 0xA3
        static let cues: UInt32 = 0x1C53_BB6B
        static let cuePoint: UInt32 = 0xBB
        static let cueTime: UInt32 = 0xB3
        static let cueTrackPositions: UInt32 = 0xB7
        static let cueTrack: UInt32 = 0xF7
        static let cueClusterPosition: UInt32 = 0xF1
    }
}
