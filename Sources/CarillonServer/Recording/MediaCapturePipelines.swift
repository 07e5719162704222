import CarillonProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The server's media capture pipelines: each stored pipeline's recording started in its meeting's room with a file
/// writer under ``RecordingConfiguration/directory``, its status kept in the store as it goes (Initializing →
/// InProgress → Stopping → Stopped, or Failed), pipelines that were recording when the server stopped resumed at its
/// start (into new files: what was written before stays), and every open file finished at shutdown.
///
/// Threading: safe from any thread; the lock guards the writers of running recordings.
final class MediaCapturePipelines: MediaCaptureControl {
    let configuration: RecordingConfiguration
    private let store: any MeetingStore
    private let rooms: MeetingRooms
    private let logger: Logger
    private let running = NIOLockedValueBox<[String: (room: MeetingRoom, writer: RecordingFileWriter)]>([:])

    init(configuration: RecordingConfiguration, store: any MeetingStore, rooms: MeetingRooms, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.rooms = rooms
        self.logger = logger
    }

    var activePipelineLimit: Int { configuration.activePipelineLimit }

    /// The directory of a pipeline's files: `<recordings>/<bucket>/<prefix>/<id>/` (the sink ARN was validated, so
    /// its parts are plain names).
    func directory(of pipeline: MediaCapturePipelineRecord) -> URL {
        var url = configuration.directory
        for part in MediaCaptureSink.pathComponents(sinkArn: pipeline.sinkArn) ?? [] {
            url.appendPathComponent(part, isDirectory: true)
        }
        return url.appendingPathComponent(pipeline.pipelineId, isDirectory: true)
    }

    func start(_ pipeline: MediaCapturePipelineRecord) {
        start(pipeline, epoch: nil)
    }

    /// Starts a pipeline's recording in its meeting's room here, opened at placement `epoch` in a cluster.
    func start(_ pipeline: MediaCapturePipelineRecord, epoch: Int64?) {
        guard let room = rooms.room(for: pipeline.meetingId, epoch: epoch) else {
            // The meeting ended between the check and now.
            update(pipeline.pipelineId, to: .stopped)
            return
        }
        let id = pipeline.pipelineId
        let writer = RecordingFileWriter(directory: directory(of: pipeline)) { [weak self] message in
            self?.failed(id, message)
        }
        running.withLockedValue { $0[id] = (room, writer) }
        room.startRecording(setup(of: pipeline), writer: writer) { [weak self] stopped, succeeded in
            guard let self else { return }
            _ = running.withLockedValue { $0.removeValue(forKey: id) }
            guard stopped else { return }
            update(id, to: succeeded ? .stopped : .failed)
        }
        logger.info("recording started", metadata: ["meeting": "\(pipeline.meetingId)", "pipeline": "\(id)",
                                                    "directory": "\(directory(of: pipeline).path)"])
        update(id, to: .inProgress, from: [.initializing])
    }

    func stop(_ pipeline: MediaCapturePipelineRecord) {
        logger.info("recording stopping", metadata: ["meeting": "\(pipeline.meetingId)", "pipeline": "\(pipeline.pipelineId)"])
        guard let room = running.withLockedValue({ $0[pipeline.pipelineId]?.room }) else {
            update(pipeline.pipelineId, to: .stopped)
            return
        }
        room.stopRecording(pipeline.pipelineId)
    }

    /// Starts again every pipeline the store says was recording (the server stopped or was killed meanwhile); those
    /// that were stopping are stopped (their files are as the last run left them), those whose meeting is gone too.
    /// A cluster's node (`startsRecordings` false) only stops those whose meeting is gone: the others resume on the
    /// node that hosts their meeting (``resume(meetingId:epoch:)``).
    func resume(startsRecordings: Bool = true) async throws {
        for pipeline in try await store.unfinishedCapturePipelines() {
            let meeting = try await store.meeting(id: pipeline.meetingId)
            if meeting == nil || (startsRecordings && pipeline.status == .stopping) {
                update(pipeline.pipelineId, to: .stopped)
            } else if startsRecordings {
                logger.info("recording resumed", metadata: ["pipeline": "\(pipeline.pipelineId)"])
                start(pipeline)
            }
        }
    }

    /// In a cluster, where a meeting's pipelines run on the node that hosts it: does here what the store says of the
    /// meeting's unfinished pipelines (starts those not running at placement `epoch`, stops those stopping). Called
    /// when this node opens the meeting's room and when another node took a pipeline call for it.
    func resume(meetingId: String, epoch: Int64) async {
        let pipelines: [MediaCapturePipelineRecord]
        do {
            pipelines = try await store.unfinishedCapturePipelines().filter { $0.meetingId == meetingId }
        } catch {
            logger.error("could not read the meeting's pipelines: \(error)", metadata: ["meeting": "\(meetingId)"])
            return
        }
        for pipeline in pipelines {
            if pipeline.status == .stopping {
                stop(pipeline)
            } else if !running.withLockedValue({ $0[pipeline.pipelineId] != nil }) {
                logger.info("recording resumed", metadata: ["pipeline": "\(pipeline.pipelineId)"])
                start(pipeline, epoch: epoch)
            }
        }
    }

    /// Finishes the open files of every running recording (the server stops) and waits until they are written; the
    /// pipelines stay InProgress and resume at the next start.
    func suspendAll() async {
        await suspend { _ in true }
    }

    /// Finishes the open files of the meeting's running recordings (it moved to another node, which resumes them);
    /// the pipelines stay InProgress.
    func suspend(meetingId: String) async {
        await suspend { $0 == meetingId }
    }

    private func suspend(where meeting: (String) -> Bool) async {
        let recordings = running.withLockedValue { $0.filter { meeting($0.value.room.meetingId) } }
        for (id, recording) in recordings {
            try? await recording.room.suspendRecording(id).get()
            await recording.writer.drain()
        }
    }

    private func failed(_ id: String, _ message: String) {
        logger.error("recording failed: \(message)", metadata: ["pipeline": "\(id)"])
        update(id, to: .failed)
        running.withLockedValue { $0[id]?.room }?.stopRecording(id)
    }

    private func update(_ id: String, to status: MediaCapturePipelineStatus,
                        from: Set<MediaCapturePipelineStatus> = [.initializing, .inProgress, .stopping]) {
        let store = store
        let logger = logger
        Task {
            do {
                _ = try await store.updateCapturePipeline(id: id, status: status, from: from, at: Date())
            } catch {
                logger.error("could not store a pipeline's status: \(error)", metadata: ["pipeline": "\(id)"])
            }
        }
    }

    private func setup(of pipeline: MediaCapturePipelineRecord) -> MeetingRecordingSetup {
        let artifacts = pipeline.configuration?.artifactsConfiguration
        let selected = pipeline.configuration?.sourceConfiguration?.selectedVideoStreams
        return MeetingRecordingSetup(
            pipelineId: pipeline.pipelineId,
            recordsAudio: artifacts?.audio?.muxType.map { $0 == "AudioOnly" } ?? true,
            recordsVideo: artifacts?.video?.state.map { $0 == "Enabled" } ?? true,
            recordsContent: artifacts?.content?.state.map { $0 == "Enabled" } ?? true,
            selectedAttendeeIds: selected?.attendeeIds.map { Set($0.map { $0.lowercased() }) },
            selectedExternalUserIds: selected?.externalUserIds.map(Set.init),
            chunkMilliseconds: configuration.chunkSeconds.map { Int64($0) * 1_000 })
    }
}
