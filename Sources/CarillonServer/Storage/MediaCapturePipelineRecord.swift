import CarillonProtocol
import Foundation

/// A stored media capture pipeline: what CreateMediaCapturePipeline accepted and where it stands.
public struct MediaCapturePipelineRecord: Sendable, Equatable, Codable {
    /// Lowercase UUID.
    public var pipelineId: String
    /// The recorded meeting.
    public var meetingId: String
    /// The meeting's ARN as the request named it.
    public var sourceArn: String
    /// `arn:aws:s3:::BUCKET[/PREFIX]`: the files go under `<recordings dir>/BUCKET/PREFIX/<pipelineId>/`.
    public var sinkArn: String
    /// What is recorded, as requested.
    public var configuration: ControlAPI.ChimeSdkMeetingConfiguration?
    /// Where it stands.
    public var status: MediaCapturePipelineStatus
    /// When it was created.
    public var createdAt: Date
    /// When its status last changed.
    public var updatedAt: Date

    /// Creates a record.
    public init(pipelineId: String, meetingId: String, sourceArn: String, sinkArn: String,
                configuration: ControlAPI.ChimeSdkMeetingConfiguration?, status: MediaCapturePipelineStatus,
                createdAt: Date, updatedAt: Date) {
        self.pipelineId = pipelineId
        self.meetingId = meetingId
        self.sourceArn = sourceArn
        self.sinkArn = sinkArn
        self.configuration = configuration
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
