/// A hook that rewrites every service URL before the SDK uses it.
public typealias URLRewriter = @Sendable (_ url: String) -> String
