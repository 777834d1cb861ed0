/// A position in the text of a statement.
///
/// The offset addresses bytes (UTF-8 code units) so that it can slice the source without
/// decoding it again; line and column are for people. Columns count Unicode scalars, which
/// is what a caret under an echoed line needs for everything but wide (CJK) glyphs.
public struct QuerySourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The UTF-8 offset from the start of the text.
    public var offset: Int
    /// The 1-based line. A statement spans several lines only while a quote or bracket is open.
    public var line: Int
    /// The 1-based column within `line`, counted in Unicode scalars.
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The start of a text.
    public static let start = QuerySourceLocation(offset: 0, line: 1, column: 1)

    public static func < (a: QuerySourceLocation, b: QuerySourceLocation) -> Bool { a.offset < b.offset }

    public var description: String { line == 1 ? "column \(column)" : "line \(line), column \(column)" }
}

/// A half-open span of a statement's text: `start` is the first character, `end` is just past
/// the last one.
package struct QuerySourceRange: Sendable, Hashable, CustomStringConvertible {
    package var start: QuerySourceLocation
    package var end: QuerySourceLocation

    package init(start: QuerySourceLocation, end: QuerySourceLocation) {
        self.start = start
        self.end = end
    }

    /// An empty range at `location`.
    package init(at location: QuerySourceLocation) {
        self.init(start: location, end: location)
    }

    /// The smallest range that covers both `self` and `other`.
    package func union(_ other: QuerySourceRange) -> QuerySourceRange {
        QuerySourceRange(start: min(start, other.start), end: max(end, other.end))
    }

    /// The UTF-8 offsets of the range, for slicing the source text.
    package var utf8Offsets: Range<Int> { start.offset..<end.offset }

    package var description: String { start.description }
}
