/// A cluster's media capture pipelines: a recording runs on the node that hosts its meeting (the meeting's media is
/// only there). The node that takes the pipeline call starts or stops it itself when it hosts the meeting (placing
/// it when nobody does yet, as a first join would); otherwise it tells the hosting node through the database, which
/// does what the store says (``MediaCapturePipelines/resume(meetingId:epoch:)``). When a meeting moves, its node lets
/// go of the files it was writing and the new host resumes the pipeline into new files.
///
/// Threading: safe from any thread; each call's work runs in a task of its own.
struct ClusterMediaCapture: MediaCaptureControl {
    let pipelines: MediaCapturePipelines
    let membership: ClusterMembership

    var activePipelineLimit: Int { pipelines.activePipelineLimit }

    func start(_ pipeline: MediaCapturePipelineRecord) {
        let pipelines = pipelines, membership = membership
        Task {
            if let epoch = await membership.hostsHere(meetingId: pipeline.meetingId) {
                pipelines.start(pipeline, epoch: epoch)
            } else {
                membership.pipelinesChanged(meetingId: pipeline.meetingId)
            }
        }
    }

    func stop(_ pipeline: MediaCapturePipelineRecord) {
        let pipelines = pipelines, membership = membership
        Task {
            if await membership.hostsHere(meetingId: pipeline.meetingId) != nil {
                pipelines.stop(pipeline)
            } else {
                membership.pipelinesChanged(meetingId: pipeline.meetingId)
            }
        }
    }
}
