import CarillonProtocol

/// The model's constraints, checked on the server (botocore only checks minimums) — `control-api.md` §3-5 and §7.
enum ControlAPIValidation {
    static let mediaCapabilities: Set<String> = ["SendReceive", "Send", "Receive", "None"]
    static let featureStatus: Set<String> = ["AVAILABLE", "UNAVAILABLE"]
    static let videoResolutions: Set<String> = ["None", "HD", "FHD"]
    static let contentResolutions: Set<String> = ["None", "FHD", "UHD"]
    static let networkTypes: Set<String> = ["Ipv4Only", "DualStack"]
    static let transcribeLanguages: Set<String> = [
        "en-US", "en-GB", "es-US", "fr-CA", "fr-FR", "en-AU", "it-IT", "de-DE", "pt-BR", "ja-JP", "ko-KR", "zh-CN",
        "th-TH", "hi-IN",
    ]
    static let transcribeRegions: Set<String> = [
        "us-east-2", "us-east-1", "us-west-2", "ap-northeast-2", "ap-southeast-2", "ap-northeast-1", "ca-central-1",
        "eu-central-1", "eu-west-1", "eu-west-2", "sa-east-1", "auto", "us-gov-west-1",
    ]
    /// The media regions Chime documents (`control-api.md` §3); a meeting in any other is refused as Chime refuses it.
    static let mediaRegions: Set<String> = [
        "af-south-1", "ap-northeast-1", "ap-northeast-2", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "ca-central-1",
        "eu-central-1", "eu-north-1", "eu-south-1", "eu-west-1", "eu-west-2", "eu-west-3", "sa-east-1", "us-east-1",
        "us-east-2", "us-west-1", "us-west-2", "us-gov-east-1", "us-gov-west-1",
    ]
    static let medicalRegions: Set<String> = ["us-east-1", "us-east-2", "us-west-2", "ap-southeast-2", "ca-central-1", "eu-west-1", "auto"]
    static let medicalSpecialties: Set<String> = ["PRIMARYCARE", "CARDIOLOGY", "NEUROLOGY", "ONCOLOGY", "RADIOLOGY", "UROLOGY"]

    typealias Failure = ControlAPIError

    static func require<T>(_ value: T?, _ member: String) throws(Failure) -> T {
        guard let value else { throw .badRequest("\(member) is required") }
        return value
    }

    static func length(_ value: String, _ member: String, _ range: ClosedRange<Int>) throws(Failure) {
        guard range.contains(value.count) else {
            throw .badRequest("\(member) must be \(range.lowerBound) to \(range.upperBound) characters long, got \(value.count)")
        }
    }

    static func oneOf(_ value: String, _ member: String, _ allowed: Set<String>) throws(Failure) {
        guard allowed.contains(value) else {
            throw .badRequest("\(member) must be one of \(allowed.sorted().joined(separator: ", ")), got \"\(value.prefix(64))\"")
        }
    }

    static func count<T>(_ list: [T], _ member: String, _ range: ClosedRange<Int>) throws(Failure) {
        guard range.contains(list.count) else {
            throw .badRequest("\(member) must hold \(range.lowerBound) to \(range.upperBound) items, got \(list.count)")
        }
    }

    static func isGuid(_ value: String) -> Bool {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    static func guid(_ value: String, _ member: String) throws(Failure) -> String {
        guard isGuid(value) else { throw .badRequest("\(member) must be a GUID, got \"\(value.prefix(64))\"") }
        return value.lowercased()
    }

    /// ExternalUserId, ExternalMeetingId and MeetingHostId: 2-64 characters of the documented set, no `aws:` prefix.
    static func externalId(_ value: String, _ member: String) throws(Failure) {
        try length(value, member, 2...64)
        let allowed = Set("-_&@+=,(){}[]/«».:|'\"#")
        for scalar in value.unicodeScalars {
            let character = Character(scalar)
            let ok = allowed.contains(character)
                || ("a"..."z").contains(character) || ("A"..."Z").contains(character) || ("0"..."9").contains(character)
                || (0xC0...0xFF).contains(scalar.value)
                || scalar.properties.isWhitespace
            guard ok else { throw .badRequest("\(member) contains a character that is not allowed: \"\(character)\"") }
        }
        if value.lowercased().hasPrefix("aws:") { throw .badRequest("\(member) must not start with the reserved prefix aws:") }
    }

    static func clientRequestToken(_ value: String) throws(Failure) {
        try length(value, "ClientRequestToken", 2...64)
        guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .badRequest("ClientRequestToken may only hold letters, digits, - and _")
        }
    }

    static func tenantId(_ value: String) throws(Failure) {
        try length(value, "TenantIds item", 2...256)
        let allowed = Set("-_!@#$")
        guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || allowed.contains($0)) }) else {
            throw .badRequest("TenantIds items may only hold letters, digits and -_!@#$")
        }
        var run = 0
        var previous: Character?
        for character in value {
            run = character == previous ? run + 1 : 1
            previous = character
            if run >= 4 { throw .badRequest("TenantIds items must not repeat a character four or more times in a row") }
        }
    }

    /// TagKey `^[a-zA-Z+-=._:/]+$`: the `+-=` inside the class is the range 0x2B-0x3D, taken literally.
    static func tagKey(_ key: String) throws(Failure) {
        try length(key, "Tag Key", 1...128)
        guard key.unicodeScalars.allSatisfy({ scalar in
            let v = scalar.value
            return (0x61...0x7A).contains(v) || (0x41...0x5A).contains(v) || (0x2B...0x3D).contains(v) || v == 0x2E || v == 0x5F
                || v == 0x3A || v == 0x2F
        }) else { throw .badRequest("Tag Key \"\(key.prefix(64))\" holds a character that is not allowed") }
    }

    /// TagValue `[\s\w+-=\.:/@]*`, with the same range quirk.
    static func tagValue(_ value: String) throws(Failure) {
        try length(value, "Tag Value", 0...256)
        guard value.unicodeScalars.allSatisfy({ scalar in
            let v = scalar.value
            return scalar.properties.isWhitespace || (0x61...0x7A).contains(v) || (0x41...0x5A).contains(v)
                || (0x30...0x39).contains(v) || v == 0x5F || (0x2B...0x3D).contains(v) || v == 0x2E || v == 0x3A
                || v == 0x2F || v == 0x40
        }) else { throw .badRequest("Tag Value \"\(value.prefix(64))\" holds a character that is not allowed") }
    }

    static func tags(_ tags: [ControlAPI.Tag], _ member: String) throws(Failure) -> [ControlAPI.Tag] {
        try count(tags, member, 0...50)
        for tag in tags {
            try tagKey(try require(tag.key, "\(member) Key"))
            try tagValue(try require(tag.value, "\(member) Value"))
        }
        return tags
    }

    static func arn(_ value: String, _ member: String) throws(Failure) {
        try length(value, member, 1...1024)
        guard value.hasPrefix("arn"), value.dropFirst(3).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/:-_.".contains($0)) })
        else { throw .badRequest("\(member) is not an ARN") }
    }

    /// The effective features: defaults of §7.1 filled in, enums and the MaxCount rules checked.
    static func features(_ requested: ControlAPI.MeetingFeaturesConfiguration?) throws(Failure) -> ControlAPI.MeetingFeaturesConfiguration {
        var features = requested ?? .init()
        if let echo = features.audio?.echoReduction { try oneOf(echo, "MeetingFeatures.Audio.EchoReduction", featureStatus) }
        let video = features.video?.maxResolution ?? "HD"
        let content = features.content?.maxResolution ?? "FHD"
        try oneOf(video, "MeetingFeatures.Video.MaxResolution", videoResolutions)
        try oneOf(content, "MeetingFeatures.Content.MaxResolution", contentResolutions)
        features.video = .init(maxResolution: video)
        features.content = .init(maxResolution: content)
        let highResolution = video == "FHD" || content == "UHD"
        if let maxCount = features.attendee?.maxCount {
            guard (1...250).contains(maxCount) else { throw .badRequest("MeetingFeatures.Attendee.MaxCount must be 1 to 250") }
            if highResolution, maxCount > 25 {
                throw .badRequest("MeetingFeatures.Attendee.MaxCount must be at most 25 with FHD video or UHD content")
            }
        } else if highResolution {
            throw .badRequest("MeetingFeatures.Attendee.MaxCount is required with FHD video or UHD content (at most 25)")
        }
        features.attendee = .init(maxCount: features.attendee?.maxCount ?? 250)
        return features
    }

    /// Capabilities of §7.2: all three present and valid, content receive needs video receive, nothing the meeting's
    /// features disable. `nil` gives the documented defaults.
    static func capabilities(
        _ requested: ControlAPI.AttendeeCapabilities?,
        features: ControlAPI.MeetingFeaturesConfiguration
    ) throws(Failure) -> ControlAPI.AttendeeCapabilities {
        let videoOff = features.video?.maxResolution == "None"
        let contentOff = features.content?.maxResolution == "None"
        guard let requested else {
            // Documented default; rule 1 is not applied to values the server fills in itself.
            if videoOff && !contentOff { return .init(audio: "SendReceive", video: "Receive", content: "SendReceive") }
            return .init(audio: "SendReceive", video: videoOff ? "None" : "SendReceive", content: contentOff ? "None" : "SendReceive")
        }
        let audio = try require(requested.audio, "Capabilities.Audio")
        let video = try require(requested.video, "Capabilities.Video")
        let content = try require(requested.content, "Capabilities.Content")
        try oneOf(audio, "Capabilities.Audio", mediaCapabilities)
        try oneOf(video, "Capabilities.Video", mediaCapabilities)
        try oneOf(content, "Capabilities.Content", mediaCapabilities)
        if videoOff, video != "None" { throw .badRequest("the meeting's video is off (MaxResolution None), so Capabilities.Video must be None") }
        if contentOff, content != "None" { throw .badRequest("the meeting's content share is off, so Capabilities.Content must be None") }
        if ["SendReceive", "Receive"].contains(content), !["SendReceive", "Receive"].contains(video) {
            throw .badRequest("Capabilities.Content \(content) requires Capabilities.Video SendReceive or Receive")
        }
        return requested
    }

    /// StartMeetingTranscription's configuration, with the documented combination rules.
    static func transcription(_ configuration: [String: Any]?) throws(Failure) {
        let configuration = try require(configuration, "TranscriptionConfiguration")
        if let settings = configuration["EngineTranscribeSettings"] {
            guard let settings = settings as? [String: Any] else { throw .badRequest("EngineTranscribeSettings must be an object") }
            func string(_ key: String) throws(Failure) -> String? {
                guard let value = settings[key] else { return nil }
                guard let text = value as? String else { throw .badRequest("EngineTranscribeSettings.\(key) must be a string") }
                return text
            }
            let languageCode = try string("LanguageCode")
            if let languageCode { try oneOf(languageCode, "EngineTranscribeSettings.LanguageCode", transcribeLanguages) }
            if let method = try string("VocabularyFilterMethod") { try oneOf(method, "EngineTranscribeSettings.VocabularyFilterMethod", ["remove", "mask", "tag"]) }
            if let region = try string("Region") { try oneOf(region, "EngineTranscribeSettings.Region", transcribeRegions) }
            if let stability = try string("PartialResultsStability") { try oneOf(stability, "EngineTranscribeSettings.PartialResultsStability", ["low", "medium", "high"]) }
            let identification = try string("ContentIdentificationType")
            let redaction = try string("ContentRedactionType")
            if let identification { try oneOf(identification, "EngineTranscribeSettings.ContentIdentificationType", ["PII"]) }
            if let redaction { try oneOf(redaction, "EngineTranscribeSettings.ContentRedactionType", ["PII"]) }
            if let preferred = try string("PreferredLanguage") { try oneOf(preferred, "EngineTranscribeSettings.PreferredLanguage", transcribeLanguages) }
            let identify = settings["IdentifyLanguage"] as? Bool ?? false
            if identification != nil, redaction != nil { throw .badRequest("ContentIdentificationType and ContentRedactionType exclude each other") }
            if settings["PiiEntityTypes"] != nil, identification == nil, redaction == nil {
                throw .badRequest("PiiEntityTypes needs ContentIdentificationType or ContentRedactionType")
            }
            if languageCode == nil, !identify { throw .badRequest("EngineTranscribeSettings needs LanguageCode or IdentifyLanguage") }
            if settings["LanguageOptions"] != nil, !identify { throw .badRequest("LanguageOptions needs IdentifyLanguage") }
            if settings["PreferredLanguage"] != nil, !identify || settings["LanguageOptions"] == nil {
                throw .badRequest("PreferredLanguage needs IdentifyLanguage and LanguageOptions")
            }
            if identify, settings["LanguageModelName"] != nil || redaction != nil || identification != nil {
                throw .badRequest("IdentifyLanguage cannot be combined with a custom language model or with redaction")
            }
        } else if let medical = configuration["EngineTranscribeMedicalSettings"] {
            guard let medical = medical as? [String: Any] else { throw .badRequest("EngineTranscribeMedicalSettings must be an object") }
            try oneOf(try require(medical["LanguageCode"] as? String, "EngineTranscribeMedicalSettings.LanguageCode"),
                      "EngineTranscribeMedicalSettings.LanguageCode", ["en-US"])
            try oneOf(try require(medical["Specialty"] as? String, "EngineTranscribeMedicalSettings.Specialty"),
                      "EngineTranscribeMedicalSettings.Specialty", medicalSpecialties)
            try oneOf(try require(medical["Type"] as? String, "EngineTranscribeMedicalSettings.Type"),
                      "EngineTranscribeMedicalSettings.Type", ["CONVERSATION", "DICTATION"])
            if let region = medical["Region"] as? String { try oneOf(region, "EngineTranscribeMedicalSettings.Region", medicalRegions) }
            if let type = medical["ContentIdentificationType"] as? String {
                try oneOf(type, "EngineTranscribeMedicalSettings.ContentIdentificationType", ["PHI"])
            }
        } else {
            throw .badRequest("TranscriptionConfiguration needs EngineTranscribeSettings or EngineTranscribeMedicalSettings")
        }
    }
}
