import ArgumentParser
import Carillon

/// One `carillon join --subscribe NAME=PRIORITY[:RESOLUTION]`: the remote attendee (by ExternalUserId) whose video to
/// receive, how much it matters and the resolution to aim for (`updateVideoSourceSubscriptions`).
///
/// A plain value, parsed once from the command line.
struct VideoSubscriptionOption: Equatable, Sendable {
    /// The ExternalUserId of the attendee whose video is subscribed.
    var name: String
    /// The SDK priority.
    var priority: VideoPriority
    /// The target resolution (``VideoResolution/high`` when not given, the SDK's default).
    var resolution: VideoResolution

    /// Priority names, from least to most important.
    static let priorities: [(String, VideoPriority)] = [("lowest", .lowest), ("low", .low), ("medium", .medium),
                                                         ("high", .high), ("highest", .highest)]
    /// Resolution names and their presets.
    static let resolutions: [(String, VideoResolution)] = [("low", .low), ("medium", .medium), ("high", .high),
                                                           ("hd", .videoResolutionHD), ("fhd", .videoResolutionFHD),
                                                           ("uhd", .videoResolutionUHD)]

    /// The option's help text.
    static let help = "Receive this attendee's video with a priority and target resolution, NAME=PRIORITY[:RESOLUTION] "
        + "(NAME: ExternalUserId; PRIORITY: \(priorities.map(\.0).joined(separator: ", ")); RESOLUTION: "
        + "\(resolutions.map(\.0).joined(separator: ", ")), default high). Repeatable; once given, only these "
        + "attendees' videos are received."

    /// Parses `NAME=PRIORITY[:RESOLUTION]`; a `ValidationError` says what is wrong.
    init(parsing text: String) throws {
        guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
            throw ValidationError("--subscribe \(text): expected NAME=PRIORITY[:RESOLUTION], e.g. alice=high:medium")
        }
        let name = String(text[..<equals])
        let parts = text[text.index(after: equals)...].split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else {
            throw ValidationError("--subscribe \(text): expected NAME=PRIORITY[:RESOLUTION], e.g. alice=high:medium")
        }
        guard let priority = Self.priorities.first(where: { $0.0 == parts[0].lowercased() })?.1 else {
            throw ValidationError("--subscribe \(text): unknown priority '\(parts[0])'; use one of "
                                  + Self.priorities.map(\.0).joined(separator: ", "))
        }
        var resolution = VideoResolution.high
        if parts.count == 2 {
            guard let named = Self.resolutions.first(where: { $0.0 == parts[1].lowercased() })?.1 else {
                throw ValidationError("--subscribe \(text): unknown resolution '\(parts[1])'; use one of "
                                      + Self.resolutions.map(\.0).joined(separator: ", "))
            }
            resolution = named
        }
        self.name = name
        self.priority = priority
        self.resolution = resolution
    }

    /// The SDK configuration it asks for.
    var configuration: VideoSubscriptionConfiguration {
        let configuration = VideoSubscriptionConfiguration()
        configuration.priority = priority
        configuration.targetResolution = resolution
        return configuration
    }

    /// Several options, checked together: a name given twice is an error.
    static func parse(_ texts: [String]) throws -> [VideoSubscriptionOption] {
        let options = try texts.map(VideoSubscriptionOption.init(parsing:))
        var seen = Set<String>()
        for option in options where !seen.insert(option.name).inserted {
            throw ValidationError("--subscribe \(option.name) is given twice")
        }
        return options
    }
}
