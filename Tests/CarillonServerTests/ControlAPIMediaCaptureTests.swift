import CarillonProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CarillonServer

/// The media capture pipeline operations against an in-memory store: shapes as boto3 reads them, validation, the
/// one-per-meeting and active limits, idempotency, the statuses a delete moves through, and a server that does not
/// record.
@Suite struct ControlAPIMediaCaptureTests {
    /// A capture control that only notes what it was asked.
    final class Control: MediaCaptureControl {
        let activePipelineLimit: Int
        let calls = NIOLockedValueBox<[String]>([])

        init(limit: Int) {
            activePipelineLimit = limit
        }

        func start(_ pipeline: MediaCapturePipelineRecord) {
            calls.withLockedValue { $0.append("start \(pipeline.pipelineId)") }
        }

        func stop(_ pipeline: MediaCapturePipelineRecord) {
            calls.withLockedValue { $0.append("stop \(pipeline.pipelineId)") }
        }
    }

    let store: SQLiteMeetingStore
    let control: Control
    let handler: ControlAPIHandler
    let bare: ControlAPIHandler

    init() throws {
        store = try SQLiteMeetingStore.inMemory()
        control = Control(limit: 2)
        let placement = LocalMeetingPlacement(host: "127.0.0.1", httpPort: 8080, mediaPort: 3478)
        handler = ControlAPIHandler(store: store, placement: placement, accountId: "111122223333",
                                    issueJoinToken: { _, _ in "tok" }, capture: control)
        bare = ControlAPIHandler(store: store, placement: placement, accountId: "111122223333", issueJoinToken: { _, _ in "tok" })
    }

    func call(_ method: String, _ path: String, query: String = "", json: String? = nil, on handler: ControlAPIHandler? = nil)
        async -> ControlAPIResponse {
        await (handler ?? self.handler).handle(ControlAPIRequest(method: method, rawPath: path, rawQuery: query,
                                                                 body: Array((json ?? "").utf8), accessKeyId: "AKIA1"))
    }

    func object(_ response: ControlAPIResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func meeting() async throws -> String {
        let response = await call("POST", "/meetings", json: #"{"ClientRequestToken":"\#(UUID().uuidString)","MediaRegion":"eu-west-1"}"#)
        return try #require((try object(response)["Meeting"] as? [String: Any])?["MeetingId"] as? String)
    }

    static let artifacts = #"{"ArtifactsConfiguration":{"Audio":{"MuxType":"AudioOnly"},"Video":{"State":"Enabled","MuxType":"VideoOnly"},"Content":{"State":"Disabled"}}}"#

    func create(_ meetingId: String, token: String? = nil, sink: String = "arn:aws:s3:::bucket/prefix",
                configuration: String = artifacts) async -> ControlAPIResponse {
        let tokenMember = token.map { #","ClientRequestToken":"\#($0)""# } ?? ""
        return await call("POST", "/sdk-media-capture-pipelines", json: """
            {"SourceType":"ChimeSdkMeeting","SourceArn":"arn:aws:chime::111122223333:meeting:\(meetingId)",\
            "SinkType":"S3Bucket","SinkArn":"\(sink)","ChimeSdkMeetingConfiguration":\(configuration)\(tokenMember)}
            """)
    }

    @Test func createAnswersTheModeledShapeAndStartsTheRecording() async throws {
        let meetingId = try await meeting()
        let response = await create(meetingId)
        #expect(response.status == 201)
        let pipeline = try #require(try object(response)["MediaCapturePipeline"] as? [String: Any])
        let id = try #require(pipeline["MediaPipelineId"] as? String)
        #expect(ControlAPIValidation.isGuid(id) && id == id.lowercased())
        #expect(pipeline["MediaPipelineArn"] as? String == "arn:aws:chime:eu-west-1:111122223333:media-pipeline/\(id)")
        #expect(pipeline["Status"] as? String == "Initializing")
        #expect(pipeline["SourceType"] as? String == "ChimeSdkMeeting")
        #expect(pipeline["SinkType"] as? String == "S3Bucket")
        #expect(pipeline["SinkArn"] as? String == "arn:aws:s3:::bucket/prefix")
        let created = try #require(pipeline["CreatedTimestamp"] as? String)
        #expect(created.count == 24 && created.hasSuffix("Z"), "\(created)")
        let configuration = try #require(pipeline["ChimeSdkMeetingConfiguration"] as? [String: Any])
        #expect((configuration["ArtifactsConfiguration"] as? [String: [String: String]])?["Content"]?["State"] == "Disabled")
        #expect(control.calls.withLockedValue { $0 } == ["start \(id)"])

        let got = await call("GET", "/sdk-media-capture-pipelines/\(id)")
        #expect(got.status == 200)
        #expect((try object(got)["MediaCapturePipeline"] as? [String: Any])?["MediaPipelineId"] as? String == id)
        #expect(await call("GET", "/sdk-media-capture-pipelines/\(UUID().uuidString.lowercased())").status == 404)
        #expect(await call("GET", "/sdk-media-capture-pipelines/not-a-guid").status == 400)
    }

    @Test(arguments: [
        ("arn:aws:s3:::bucket", #"{"ArtifactsConfiguration":{"Audio":{"MuxType":"AudioWithCompositedVideo"},"Video":{"State":"Enabled"},"Content":{"State":"Enabled"}}}"#),
        ("arn:aws:s3:::bucket", #"{"ArtifactsConfiguration":{"Audio":{"MuxType":"AudioOnly"},"Video":{"State":"On"},"Content":{"State":"Enabled"}}}"#),
        ("arn:aws:s3:::bucket", #"{"ArtifactsConfiguration":{"Audio":{"MuxType":"AudioOnly"},"Content":{"State":"Enabled"}}}"#),
        ("arn:aws:s3:::bucket", #"{"ArtifactsConfiguration":{"Audio":{"MuxType":"AudioOnly"},"Video":{"State":"Enabled"},"Content":{"State":"Enabled"},"CompositedVideo":{"GridViewConfiguration":{"ContentShareLayout":"Vertical"}}}}"#),
        ("arn:aws:s3:::bucket", #"{"SourceConfiguration":{"SelectedVideoStreams":{"AttendeeIds":["nope"]}}}"#),
        ("arn:aws:s3:::bucket", #"{"SourceConfiguration":{"SelectedVideoStreams":{"ExternalUserIds":[]}}}"#),
        ("arn:aws:s3:::Bucket", "{}"),
        ("arn:aws:s3:::bucket/../escape", "{}"),
        ("arn:aws:s3:::bucket//double", "{}"),
        ("arn:aws:s3:::b", "{}"),
        ("arn:aws:sqs:::bucket", "{}"),
    ])
    func badInputIsA400NamingTheMember(sink: String, configuration: String) async throws {
        let response = await create(try await meeting(), sink: sink, configuration: configuration)
        #expect(response.status == 400)
        #expect(response.header("x-amzn-ErrorType") == "BadRequestException")
        #expect(control.calls.withLockedValue { $0 }.isEmpty)
    }

    @Test func theSourceMustBeAnExistingMeetingNamedByItsArn() async throws {
        let missing = UUID().uuidString.lowercased()
        #expect(await create(missing).status == 404)
        let wrong = await call("POST", "/sdk-media-capture-pipelines", json: """
            {"SourceType":"ChimeSdkMeeting","SourceArn":"arn:aws:chime::1:attendee:\(missing)","SinkType":"S3Bucket",\
            "SinkArn":"arn:aws:s3:::bucket"}
            """)
        #expect(wrong.status == 400)
        // This server's own meeting ARN form (`meeting/<id>`) is accepted too.
        let meetingId = try await meeting()
        let own = await call("POST", "/sdk-media-capture-pipelines", json: """
            {"SourceType":"ChimeSdkMeeting","SourceArn":"arn:aws:chime:eu-west-1:111122223333:meeting/\(meetingId)",\
            "SinkType":"S3Bucket","SinkArn":"arn:aws:s3:::bucket"}
            """)
        #expect(own.status == 201)
    }

    @Test func oneActivePipelinePerMeetingAndAtMostTheLimitActive() async throws {
        let first = try await meeting()
        #expect(await create(first).status == 201)
        let again = await create(first)
        #expect(again.status == 400)
        #expect(again.header("x-amzn-ErrorType") == "ResourceLimitExceededException")
        #expect(await create(try await meeting()).status == 201)
        let third = await create(try await meeting())
        #expect(third.status == 400)
        #expect(third.header("x-amzn-ErrorType") == "ResourceLimitExceededException")
        #expect((try object(third)["Code"] as? String) == "ResourceLimitExceeded")
        #expect(control.calls.withLockedValue { $0.count } == 2)
    }

    @Test func aRepeatedTokenReturnsThePipelineItCreatedAndOtherParametersAreRefused() async throws {
        let meetingId = try await meeting()
        let first = await create(meetingId, token: "pipe-token-1")
        let second = await create(meetingId, token: "pipe-token-1")
        #expect(first.status == 201 && second.status == 201)
        let id = (try object(first)["MediaCapturePipeline"] as? [String: Any])?["MediaPipelineId"] as? String
        #expect((try object(second)["MediaCapturePipeline"] as? [String: Any])?["MediaPipelineId"] as? String == id)
        #expect(await create(meetingId, token: "pipe-token-1", sink: "arn:aws:s3:::other").status == 400)
        #expect(control.calls.withLockedValue { $0.count } == 1)
    }

    @Test func deleteStopsAnActivePipelineOnceAndListShowsEveryPipeline() async throws {
        let meetingId = try await meeting()
        let id = try #require((try object(await create(meetingId))["MediaCapturePipeline"] as? [String: Any])?["MediaPipelineId"] as? String)
        #expect(await call("DELETE", "/sdk-media-capture-pipelines/\(id)").status == 204)
        let stopping = try object(await call("GET", "/sdk-media-capture-pipelines/\(id)"))
        #expect((stopping["MediaCapturePipeline"] as? [String: Any])?["Status"] as? String == "Stopping")
        // A second delete of a stopping pipeline changes nothing and asks nothing more.
        #expect(await call("DELETE", "/sdk-media-capture-pipelines/\(id)").status == 204)
        #expect(control.calls.withLockedValue { $0 } == ["start \(id)", "stop \(id)"])
        #expect(await call("DELETE", "/sdk-media-capture-pipelines/\(UUID().uuidString.lowercased())").status == 404)
        // The meeting may be captured again at once: a stopping pipeline no longer counts.
        #expect(await create(meetingId).status == 201)

        let page = try object(await call("GET", "/sdk-media-capture-pipelines", query: "max-results=1"))
        #expect((page["MediaCapturePipelines"] as? [[String: String]])?.map { $0["MediaPipelineId"] } == [id])
        let next = try #require(page["NextToken"] as? String)
        let rest = try object(await call("GET", "/sdk-media-capture-pipelines", query: "next-token=\(next)"))
        #expect((rest["MediaCapturePipelines"] as? [Any])?.count == 1)
        #expect(rest["NextToken"] == nil)
    }

    @Test func aServerThatDoesNotRecordRefusesCreateAndSaysHowToRecord() async throws {
        let response = await call("POST", "/sdk-media-capture-pipelines", json: "{}", on: bare)
        #expect(response.status == 400)
        #expect((try object(response)["Message"] as? String)?.contains("--recordings-dir") == true)
        #expect(await call("GET", "/sdk-media-capture-pipelines", on: bare).status == 200)
    }

    @Test func sinkArnsMapToPlainFolders() {
        #expect(MediaCaptureSink.pathComponents(sinkArn: "arn:aws:s3:::my-bucket") == ["my-bucket"])
        #expect(MediaCaptureSink.pathComponents(sinkArn: "arn:aws:s3:::my.bucket/a/b-c/") == ["my.bucket", "a", "b-c"])
        #expect(MediaCaptureSink.pathComponents(sinkArn: "arn:aws:s3:::bucket/./x") == nil)
        #expect(MediaCaptureSink.pathComponents(sinkArn: "arn:aws:s3:::bucket/a b") == nil)
        #expect(MediaCaptureSink.pathComponents(sinkArn: "arn:aws:s3:::-bucket") == nil)
    }
}
