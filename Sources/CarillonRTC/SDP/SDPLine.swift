/// A line of a type the model does not interpret (`i=`, `u=`, `e=`, `p=`, `b=`, `k=`, `r=`, `z=`, a second `c=`, or
/// an unknown letter), kept so that parsing and serialising loses nothing.
public struct SDPLine: Sendable, Equatable, Hashable {
    /// The type letter.
    public var type: Character
    /// The text after `=`.
    public var value: String

    /// Creates a line.
    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }

    /// Where the line goes in its section: RFC 8866 §5 orders lines by type.
    func rank(inSession: Bool) -> Int {
        if inSession {
            switch type {
            case "i": 0
            case "u": 1
            case "e": 2
            case "p": 3
            case "c": 4
            case "b": 5
            case "r": 6
            case "z": 7
            case "k": 8
            default: 9
            }
        } else {
            switch type {
            case "i": 0
            case "c": 1
            case "b": 2
            case "k": 3
            default: 4
            }
        }
    }
}
