/// A piece of a statement's text, kept raw with where it came from.
///
/// The shell recognizes a statement's shape but leaves predicates, JSON documents and
/// literals to the store's parsers; keeping the offset lets their errors point at the
/// right column of what the user typed.
public struct SourceFragment: Sendable, Equatable, CustomStringConvertible {
    /// The text exactly as written (quotes included, if any).
    public var text: String
    /// Where `text` starts in the statement, in UTF-8 bytes from the statement's start.
    public var offset: Int

    public init(_ text: String, offset: Int) {
        self.text = text
        self.offset = offset
    }

    public var description: String { text }
}
