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

    /// The error at `offset` unless it names a place already.
    public func placed(at offset: Int) -> StatementError {
        StatementError(message, at: self.offset ?? offset)
    }
}
