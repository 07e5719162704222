import CarillonCrypto
import CarillonProtocol
import Foundation

/// The Chime SDK Media Pipelines operations on media capture pipelines (boto3's `chime-sdk-media-pipelines`, signed
/// for service `chime` like the meetings API, routed by path).
extension ControlAPIHandler {
    /// CreateMediaCapturePipeline: validated, stored as Initializing (one active pipeline per meeting, at most
    /// ``MediaCaptureControl/activePipelineLimit`` active), then started.
    func createMediaCapturePipeline(_ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        guard let capture else {
            throw ControlAPIError.badRequest("this server does not record meetings: start it with "
                + "`carillon serve --recordings-dir DIR` to use media capture pipelines")
        }
        var body = try decode(ControlAPI.CreateMediaCapturePipelineRequest.self, request)
        typealias V = ControlAPIValidation
        try V.oneOf(try V.require(body.sourceType, "SourceType"), "SourceType", ["ChimeSdkMeeting"])
        let sourceArn = try V.require(body.sourceArn, "SourceArn")
        try V.arn(sourceArn, "SourceArn")
        try V.oneOf(try V.require(body.sinkType, "SinkType"), "SinkType", ["S3Bucket"])
        let sinkArn = try V.require(body.sinkArn, "SinkArn")
        try V.arn(sinkArn, "SinkArn")
        guard MediaCaptureSink.pathComponents(sinkArn: sinkArn) != nil else {
            throw ControlAPIError.badRequest("SinkArn must be arn:aws:s3:::BUCKET[/PREFIX] with a bucket of 3-63 "
                + "characters a-z0-9.- and prefix parts of A-Za-z0-9!-_.*'() (no . or ..)")
        }
        if let token = body.clientRequestToken { try V.clientRequestToken(token) }
        if body.sseAwsKeyManagementParams != nil {
            throw ControlAPIError.badRequest("SseAwsKeyManagementParams is not supported: this server writes to a local directory")
        }
        _ = try V.tags(body.tags ?? [], "Tags")
        if let tags = body.tags { try V.count(tags, "Tags", 1...200) }
        try Self.validate(body.chimeSdkMeetingConfiguration)
        let meetingId = try Self.meetingId(sourceArn: sourceArn)
        guard let meeting = try await store.meeting(id: meetingId) else {
            throw ControlAPIError.notFound("meeting \(meetingId) not found")
        }

        let token = body.clientRequestToken
        body.clientRequestToken = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let fingerprint = Hex.encode(SHA256Digest.hash(try encoder.encode(body)))
        let now = Date()
        let record = MediaCapturePipelineRecord(
            pipelineId: UUID().uuidString.lowercased(), meetingId: meeting.meetingId, sourceArn: sourceArn,
            sinkArn: sinkArn, configuration: body.chimeSdkMeetingConfiguration, status: .initializing,
            createdAt: now, updatedAt: now)
        let key = token.map { IdempotencyKey(accessKeyId: request.accessKeyId, token: $0, fingerprint: fingerprint) }
        switch try await store.insertCapturePipeline(record, idempotencyKey: key, activeLimit: capture.activePipelineLimit) {
        case .created(let stored):
            capture.start(stored)
            return (201, try encode(ControlAPI.MediaCapturePipelineResponse(mediaCapturePipeline: render(stored, meeting: meeting))))
        case .repeated(let earlier):
            return (201, try encode(ControlAPI.MediaCapturePipelineResponse(mediaCapturePipeline: render(earlier, meeting: meeting))))
        case .tokenReused:
            throw ControlAPIError.badRequest("ClientRequestToken \(token ?? "") was already used with other parameters")
        case .meetingAlreadyCaptured(let other):
            throw ControlAPIError.resourceLimitExceeded("meeting \(meeting.meetingId) already has an active media "
                + "capture pipeline (\(other)); a meeting has one at a time")
        case .limitExceeded(let limit):
            throw ControlAPIError.resourceLimitExceeded("\(limit) media capture pipelines are active, the most this server runs")
        }
    }

    /// GetMediaCapturePipeline.
    func getMediaCapturePipeline(_ rawId: String) async throws -> (Int, [UInt8]?) {
        let pipeline = try await pipelineRecord(rawId)
        let meeting = try await store.meeting(id: pipeline.meetingId)
        return (200, try encode(ControlAPI.MediaCapturePipelineResponse(mediaCapturePipeline: render(pipeline, meeting: meeting))))
    }

    /// ListMediaCapturePipelines: every pipeline, stopped ones included, oldest first.
    func listMediaCapturePipelines(_ query: [String: String]) async throws -> (Int, [UInt8]?) {
        let (limit, after) = try Self.page(query)
        let page = try await store.capturePipelines(after: after, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { "p\($0.sequence)" } : nil
        var summaries: [ControlAPI.MediaCapturePipelinesResponse.Summary] = []
        for (pipeline, _) in shown {
            let region = try await store.meeting(id: pipeline.meetingId)?.mediaRegion
            summaries.append(.init(mediaPipelineId: pipeline.pipelineId, mediaPipelineArn: arn(pipeline, region: region)))
        }
        return (200, try encode(ControlAPI.MediaCapturePipelinesResponse(mediaCapturePipelines: summaries, nextToken: next)))
    }

    /// DeleteMediaCapturePipeline: an active pipeline becomes Stopping and then Stopped once its files are finished;
    /// one already stopping, stopped or failed is left as it is.
    func deleteMediaCapturePipeline(_ rawId: String) async throws -> (Int, [UInt8]?) {
        let pipeline = try await pipelineRecord(rawId)
        guard pipeline.status.isActive else { return (204, nil) }
        guard let stopping = try await store.updateCapturePipeline(id: pipeline.pipelineId, status: .stopping,
                                                                   from: [.initializing, .inProgress], at: Date())
        else { throw ControlAPIError.notFound("media capture pipeline \(pipeline.pipelineId) not found") }
        if stopping.status == .stopping { capture?.stop(stopping) }
        return (204, nil)
    }

    // MARK: Helpers

    private func pipelineRecord(_ rawId: String) async throws -> MediaCapturePipelineRecord {
        let id = try ControlAPIValidation.guid(rawId, "MediaPipelineId")
        guard let pipeline = try await store.capturePipeline(id: id) else {
            throw ControlAPIError.notFound("media capture pipeline \(id) not found")
        }
        return pipeline
    }

    private func arn(_ pipeline: MediaCapturePipelineRecord, region: String?) -> String {
        "arn:aws:chime:\(region ?? "us-east-1"):\(accountId):media-pipeline/\(pipeline.pipelineId)"
    }

    private func render(_ pipeline: MediaCapturePipelineRecord, meeting: MeetingRecord?) -> ControlAPI.MediaCapturePipeline {
        ControlAPI.MediaCapturePipeline(
            mediaPipelineId: pipeline.pipelineId, mediaPipelineArn: arn(pipeline, region: meeting?.mediaRegion),
            sourceType: "ChimeSdkMeeting", sourceArn: pipeline.sourceArn, status: pipeline.status.rawValue,
            sinkType: "S3Bucket", sinkArn: pipeline.sinkArn,
            createdTimestamp: pipeline.createdAt.formatted(Self.timestampFormat), updatedTimestamp: pipeline.updatedAt.formatted(Self.timestampFormat),
            chimeSdkMeetingConfiguration: pipeline.configuration)
    }

    /// The meeting id of a source ARN: `arn:aws:chime:<region>:<account>:meeting:<id>` or `…:meeting/<id>` (the form
    /// this server's meeting ARNs have).
    static func meetingId(sourceArn: String) throws -> String {
        let refusal = ControlAPIError.badRequest(
            "SourceArn must be a Chime SDK meeting's ARN: arn:aws:chime::<account>:meeting:<MeetingId>")
        let parts = sourceArn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "arn", parts[2] == "chime" else { throw refusal }
        for marker in ["meeting:", "meeting/"] where parts[5].hasPrefix(marker) {
            return try ControlAPIValidation.guid(String(parts[5].dropFirst(marker.count)), "SourceArn's meeting id")
        }
        throw refusal
    }

    /// The ChimeSdkMeetingConfiguration rules: artifacts this server can write (no compositing), selected streams as
    /// Chime bounds them.
    static func validate(_ configuration: ControlAPI.ChimeSdkMeetingConfiguration?) throws {
        typealias V = ControlAPIValidation
        if let selected = configuration?.sourceConfiguration?.selectedVideoStreams {
            let ids = selected.attendeeIds ?? []
            let external = selected.externalUserIds ?? []
            if let list = selected.attendeeIds { try V.count(list, "SelectedVideoStreams.AttendeeIds", 1...25) }
            if let list = selected.externalUserIds { try V.count(list, "SelectedVideoStreams.ExternalUserIds", 1...25) }
            guard ids.count + external.count <= 25 else {
                throw ControlAPIError.badRequest("SelectedVideoStreams may name at most 25 streams, got \(ids.count + external.count)")
            }
            for id in ids { _ = try V.guid(id, "SelectedVideoStreams.AttendeeIds") }
            for id in external { try V.length(id, "SelectedVideoStreams.ExternalUserIds", 2...64) }
        }
        guard let artifacts = configuration?.artifactsConfiguration else { return }
        if artifacts.compositedVideo != nil {
            throw ControlAPIError.badRequest("CompositedVideo is not supported: this server records each camera as received")
        }
        let audio = try V.require(artifacts.audio, "ArtifactsConfiguration.Audio")
        let mux = try V.require(audio.muxType, "ArtifactsConfiguration.Audio.MuxType")
        try V.oneOf(mux, "ArtifactsConfiguration.Audio.MuxType", ["AudioOnly", "AudioWithActiveSpeakerVideo", "AudioWithCompositedVideo"])
        guard mux == "AudioOnly" else {
            throw ControlAPIError.badRequest("Audio MuxType \(mux) needs composited video, which this server does not make: use AudioOnly")
        }
        for (name, artifact, muxType) in [("Video", artifacts.video, "VideoOnly"), ("Content", artifacts.content, "ContentOnly")] {
            let artifact = try V.require(artifact, "ArtifactsConfiguration.\(name)")
            try V.oneOf(try V.require(artifact.state, "ArtifactsConfiguration.\(name).State"),
                        "ArtifactsConfiguration.\(name).State", ["Enabled", "Disabled"])
            if let mux = artifact.muxType { try V.oneOf(mux, "ArtifactsConfiguration.\(name).MuxType", [muxType]) }
        }
    }
}
