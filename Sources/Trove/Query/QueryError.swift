/// A query that cannot be read: what was expected, and where.
///
/// `description` is what the shell prints after `error: `: the message with its position,
/// then the offending line of the statement with a caret under the column:
///
/// ```
/// expected a value after '&&', found '==' at column 12
///   age > 3 && == 4
///              ^
/// ```
public struct QueryError: DescribedError, Sendable, Hashable {
    /// The class of a query error, for callers that react differently to each.
    public enum Kind: Sendable, Hashable {
        /// A character that starts no token.
        case unexpectedCharacter
        /// A quote that is never closed.
        case unterminatedString
        /// A backslash escape that the language does not define, or a bad `\uXXXX`.
        case invalidEscape
        /// A malformed number, or one out of range.
        case invalidNumber
        /// A `$` that names neither a parameter nor a variable, or a parameter number out of range;
        /// or arguments that do not fit the parameters: none given for a `$n`, or more given
        /// than the statement uses.
        case invalidParameter
        /// A modifier other than `[c]`, `[d]`, `[cd]`, or one on an operator that takes none.
        case invalidModifier
        /// An unknown `@` operator, or one used where it makes no sense (`@count.name`).
        case invalidAggregate
        /// A token the grammar does not allow here.
        case unexpectedToken
        /// The statement ends where more is needed (an interactive shell may read on).
        case unexpectedEnd
        /// A `$x` outside any `SUBQUERY` that declares it, or declared twice.
        case unknownVariable
        /// `ANY`/`ALL`/`NONE` on something other than a key path.
        case invalidQuantifier
        /// `LIMIT` with something other than a non-negative integer.
        case invalidLimit
        /// `OFFSET` with something other than a non-negative integer.
        case invalidOffset
        /// Parentheses, `NOT`s or subqueries nested deeper than `QueryParser.maximumDepth`.
        case nestingTooDeep
        /// A statement longer than `QueryParser.maximumLength` bytes.
        case statementTooLong
        /// A `MATCHES` pattern that is not a valid ICU regular expression.
        case invalidRegularExpression
        /// A model the schema does not define.
        case unknownModel
        /// A key path component the model does not define, or one that cannot continue the path.
        case unknownProperty
        /// Operands whose types cannot be compared, or a value that is not of the property's type.
        case typeMismatch
        /// An operator that does not apply to its operands' type (`<` on a bool, `CONTAINS` on an int).
        case invalidOperator
        /// A key path used where its shape does not fit: sorting by a list, a subquery on a scalar.
        case invalidKeyPath
        /// Two `SELECT` items with one name, or one key path twice in `GROUP`.
        case duplicateName
        /// A construct a store runs but the backend running the statement cannot run with the
        /// store's meaning (`MATCHES` on PostgreSQL, whose regular expressions are not ICU's).
        case unsupported
    }

    public var kind: Kind
    /// What went wrong, without the position: `expected a value after '==', found ')'`.
    public var message: String
    /// Where it went wrong.
    public var location: QuerySourceLocation
    /// The statement, echoed by `description` when known.
    public var statement: String?

    public init(_ kind: Kind, _ message: String, at location: QuerySourceLocation, in statement: String? = nil) {
        self.kind = kind
        self.message = message
        self.location = location
        self.statement = statement
    }

    /// The column of the error (1-based, in Unicode scalars).
    public var column: Int { location.column }

    /// The message with its position, the offending line and a caret under the column.
    public var description: String {
        var text = "\(message) at \(location)"
        if let statement, let excerpt = Self.excerpt(of: statement, at: location) {
            text += "\n  " + excerpt.line + "\n  " + excerpt.caretPrefix + "^"
        }
        return text
    }

    /// How many scalars of a long line are echoed on each side of the caret.
    private static let echoRadius = 60

    /// The line holding `location`, cut to a window around it for long lines, and the
    /// whitespace that puts a caret under the location (tabs are kept so that it lines up).
    private static func excerpt(of statement: String, at location: QuerySourceLocation) -> (line: String, caretPrefix: String)? {
        let lines = statement.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        var scalars = Array(lines[location.line - 1])
        if scalars.last == "\r" { scalars.removeLast() }
        var caret = max(0, min(location.column - 1, scalars.count))
        var head = "", tail = ""
        if caret > echoRadius {
            scalars.removeFirst(caret - echoRadius)
            caret = echoRadius
            head = "..."
        }
        if scalars.count > caret + echoRadius {
            scalars.removeLast(scalars.count - caret - echoRadius)
            tail = "..."
        }
        var line = String.UnicodeScalarView()
        for scalar in scalars {
            // Other control characters would garble the terminal, and shift the caret.
            line.append(scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F ? "?" : scalar)
        }
        let prefix = String(head.map { _ in " " }) + String(scalars[..<caret].map { $0 == "\t" ? "\t" : " " })
        return (head + String(line) + tail, prefix)
    }
}

extension QueryError {
    /// A sum of `text` (at `location`) beyond the range of `int`, of `double` when it adds
    /// fractional numbers, or of `decimal`: the one wording of a store's overflow, which a backend's refusal
    /// of the same sum repeats.
    package static func sumOutOfRange(_ text: String, fractional: Bool = false, decimal: Bool = false, at location: QuerySourceLocation,
                                      in statement: String? = nil) -> QueryError {
        let range = decimal ? "decimal" : fractional ? "double" : "int (\(Int64.min)...\(Int64.max))"
        return QueryError(.invalidNumber, "the sum of '\(text)' is out of the range of \(range)", at: location, in: statement)
    }
}
