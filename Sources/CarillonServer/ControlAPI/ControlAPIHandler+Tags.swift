import CarillonProtocol

extension ControlAPIHandler {
    /// TagResource: adds or replaces tags; a meeting holds at most 50.
    func tagResource(_ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let body = try decode(ControlAPI.TagsRequest.self, request)
        let meeting = try await taggedMeeting(body.resourceARN)
        let tags = try ControlAPIValidation.tags(try ControlAPIValidation.require(body.tags, "Tags"), "Tags")
        var merged = Dictionary(try await store.tags(meetingId: meeting.meetingId).map { ($0.key ?? "", $0.value ?? "") },
                                uniquingKeysWith: { _, last in last })
        for tag in tags { merged[tag.key ?? ""] = tag.value ?? "" }
        guard merged.count <= 50 else {
            throw ControlAPIError.tooManyTags("a meeting holds at most 50 tags; this request would make \(merged.count)")
        }
        try await store.setTags(meetingId: meeting.meetingId,
                                tags: merged.sorted { $0.key < $1.key }.map { ControlAPI.Tag(key: $0.key, value: $0.value) })
        return (204, nil)
    }

    /// UntagResource: removing absent keys is not an error.
    func untagResource(_ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let body = try decode(ControlAPI.TagsRequest.self, request)
        let meeting = try await taggedMeeting(body.resourceARN)
        let keys = try ControlAPIValidation.require(body.tagKeys, "TagKeys")
        try ControlAPIValidation.count(keys, "TagKeys", 0...50)
        for key in keys { try ControlAPIValidation.tagKey(key) }
        let remaining = try await store.tags(meetingId: meeting.meetingId).filter { !keys.contains($0.key ?? "") }
        try await store.setTags(meetingId: meeting.meetingId, tags: remaining)
        return (204, nil)
    }

    /// ListTagsForResource (`GET /tags?arn=...`).
    func listTags(_ query: [String: String]) async throws -> (Int, [UInt8]?) {
        let meeting = try await taggedMeeting(query["arn"])
        return (200, try encode(ControlAPI.TagsResponse(tags: try await store.tags(meetingId: meeting.meetingId))))
    }

    /// The meeting named by `arn:aws:chime:<region>:<account>:meeting/<MeetingId>`.
    private func taggedMeeting(_ arn: String?) async throws -> MeetingRecord {
        let arn = try ControlAPIValidation.require(arn, "ResourceARN")
        try ControlAPIValidation.length(arn, "ResourceARN", 1...1011)
        guard arn.hasPrefix("arn:") else { throw ControlAPIError.badRequest("ResourceARN must start with arn:") }
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[1] == "aws", parts[2] == "chime", parts[4] == Substring(accountId),
              parts[5].hasPrefix("meeting/")
        else { throw ControlAPIError.resourceNotFound("no meeting of this server has the ARN \(arn.prefix(200))") }
        let id = String(parts[5].dropFirst("meeting/".count))
        guard ControlAPIValidation.isGuid(id), let meeting = try await store.meeting(id: id.lowercased()),
              self.arn(meeting) == arn
        else { throw ControlAPIError.resourceNotFound("no meeting of this server has the ARN \(arn.prefix(200))") }
        return meeting
    }
}
