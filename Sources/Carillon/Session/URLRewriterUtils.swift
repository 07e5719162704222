/// Ready-made URL rewriters.
public final class URLRewriterUtils: Sendable {
    /// Leaves URLs unchanged.
    public static let defaultUrlRewriter: URLRewriter = { $0 }
}
