/// Where a record stood in the input of an import, for an error that names it: a store's
/// import and a PostgreSQL bulk insert (which may find a record's fault only when the server
/// refuses its batch, long after) say it the same way, and make its text only then.
public enum RecordPlace: Sendable, CustomStringConvertible {
    /// `line N`, of a file read by lines.
    case line(Int)
    /// `line N` of a file of objects of `model` read by lines, whose primary key is in field
    /// `keyColumn` (from 1), headed `key`: an error about that key names the field too
    /// (``place(of:)``).
    case keyedLine(Int, keyColumn: Int, key: String, model: String)
    /// `record N`.
    case record(Int)
    /// `record N, line L, column C`: a record of a file that is not read by lines (JSON),
    /// where it starts, as a JSON syntax error names its place.
    case recordAt(Int, line: Int, column: Int)
    /// The text itself.
    case named(String)

    public var description: String {
        switch self {
        case .line(let line), .keyedLine(let line, _, _, _): "line \(line)"
        case .record(let record): "record \(record)"
        case .recordAt(let record, let line, let column): "record \(record), line \(line), column \(column)"
        case .named(let text): text
        }
    }

    /// The field in column `column` (from 1) of the record, headed `name` when the file has
    /// a header that names it: `line 3, column 2 (id)`, the one form every import error about
    /// a field takes.
    public func field(_ column: Int, named name: String? = nil) -> String {
        "\(description), column \(column)" + (name.map { " (\($0))" } ?? "")
    }

    /// The place of `error` in the record: a primary key of the record's model already taken
    /// names the field that holds it, as an error about a field's value does
    /// (`line 3, column 1 (id)`).
    public func place(of error: (any Error)?) -> String {
        if case let .keyedLine(_, column, key, model) = self, case let StoreError.duplicatePrimaryKey(taken, _)? = error, taken == model {
            return field(column, named: key)
        }
        return description
    }
}
