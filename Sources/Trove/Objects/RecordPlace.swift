/// Where a record stood in the input of an import, for an error that names it: a store's
/// import and a PostgreSQL bulk insert (which may find a record's fault only when the server
/// refuses its batch, long after) say it the same way, and make its text only then.
public enum RecordPlace: Sendable, CustomStringConvertible {
    /// `line N`, of a file read by lines.
    case line(Int)
    /// `line N` of a file read by lines whose primary key is in field `keyColumn` (from 1),
    /// headed `key`: an error about that key names the field too (``place(of:)``).
    case keyedLine(Int, keyColumn: Int, key: String)
    /// `record N`.
    case record(Int)
    /// `record N, line L, column C`: a record of a file that is not read by lines (JSON),
    /// where it starts, as a JSON syntax error names its place.
    case recordAt(Int, line: Int, column: Int)
    /// The text itself.
    case named(String)

    public var description: String {
        switch self {
        case .line(let line), .keyedLine(let line, _, _): "line \(line)"
        case .record(let record): "record \(record)"
        case .recordAt(let record, let line, let column): "record \(record), line \(line), column \(column)"
        case .named(let text): text
        }
    }

    /// The place of `error` in the record: a duplicate primary key names the field that
    /// holds it, as an error about a field's value does (`line 3, column 1 (id)`).
    public func place(of error: (any Error)?) -> String {
        if case let .keyedLine(line, column, key) = self, case StoreError.duplicatePrimaryKey? = error {
            return "line \(line), column \(column) (\(key))"
        }
        return description
    }
}
