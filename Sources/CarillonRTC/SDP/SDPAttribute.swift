/// A generic attribute line, `a=<name>` or `a=<name>:<value>`, kept as text.
public struct SDPAttribute: Sendable, Equatable, Hashable {
    /// The attribute name (before the first colon).
    public var name: String
    /// The text after the first colon; nil for a property attribute without a colon.
    public var value: String?

    /// Creates an attribute.
    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The line without `a=`.
    public var sdpValue: String {
        if let value { "\(name):\(value)" } else { name }
    }
}
