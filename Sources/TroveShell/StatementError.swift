/// A statement the shell or the store could not run, with where it went wrong.
///
/// Backends throw it too: an `offset` (UTF-8 bytes from the statement's start, e.g.
/// `fragment.offset + n`) makes the shell print the line and column; nil prints no position.
public struct StatementError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int?

    public init(_ message: String, at offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }

    /// What a write under `--readonly` says: "cannot ACTION: the database is open read-only".
    static func readOnly(_ action: String, at offset: Int? = nil) -> StatementError {
        StatementError("cannot \(action): the database is open read-only (--readonly)", at: offset)
    }

    /// What every statement that names a model not in `names` says: the models it could
    /// have named, or the one spelled the same but for case.
    static func noModel(named name: String, among names: [String], at offset: Int? = nil) -> StatementError {
        var message = "no model named '\(name)'"
        if let similar = names.first(where: { $0.lowercased() == name.lowercased() }) {
            message += "; did you mean '\(similar)'?"
        } else if !names.isEmpty {
            message += " (models: \(names.joined(separator: ", ")))"
        }
        return StatementError(message, at: offset)
    }

    /// The error at `offset` unless it names a place already.
    public func placed(at offset: Int) -> StatementError {
        StatementError(message, at: self.offset ?? offset)
    }
}
