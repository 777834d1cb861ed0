import Trove

/// A statement the shell or the store could not run, with where it went wrong.
///
/// Backends throw it too: an `offset` (UTF-8 bytes from the statement's start, e.g.
/// `fragment.offset + n`) makes the shell print the line and column; nil prints no position.
public struct StatementError: DescribedError, Sendable, Equatable {
    public var message: String
    public var offset: Int?
    /// Whether the statement names a model the database does not define: the shell then
    /// says how to give a database without models its models, whichever layer refused.
    public var namesUnknownModel = false

    public init(_ message: String, at offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    /// The query error `error`, reported `offset` bytes into the statement: the place of the
    /// query's text plus the error's own offset in it.
    public init(_ error: QueryError, at offset: Int) {
        self.init(error.message, at: offset)
        namesUnknownModel = error.kind == .unknownModel
    }

    /// The store's refusal `error`, which names no place in the statement; `models`, the
    /// database's, are what a name that is none of them is told of (``noModel(named:among:at:)``).
    init(_ error: StoreError, models: [String]) {
        if case .noSuchModel(let name) = error { self = .noModel(named: name, among: models) } else { self.init(error.description) }
    }

    /// That the statement names `name`, a model the database does not define; `detail`
    /// follows the name (`; did you mean 'Person'?`).
    static func unknownModel(_ name: String, _ detail: String = "", at offset: Int? = nil) -> StatementError {
        var error = StatementError(UnknownModelName.message(name, among: []) + detail, at: offset)
        error.namesUnknownModel = true
        return error
    }

    public var description: String { message }

    /// What a write under `--readonly` says: "cannot ACTION: the database is open read-only".
    static func readOnly(_ action: String, at offset: Int? = nil) -> StatementError {
        StatementError("cannot \(action): the database is open read-only (--readonly)", at: offset)
    }

    /// What every statement and dot-command that names a model not in `names` says, as the
    /// query binder does (`UnknownModelName`): the model it most likely misspells, else the
    /// models there are.
    static func noModel(named name: String, among names: [String], at offset: Int? = nil) -> StatementError {
        .unknownModel(name, UnknownModelName.hint(for: name, among: names), at: offset)
    }

    /// What a statement that picks objects of `model` by primary key says when it has none.
    static func noPrimaryKey(_ model: String, at offset: Int? = nil) -> StatementError {
        StatementError("model '\(model)' has no primary key: use 'where' to choose objects", at: offset)
    }

    /// The error at `offset` unless it names a place already.
    public func placed(at offset: Int) -> StatementError {
        var placed = self
        placed.offset = self.offset ?? offset
        return placed
    }
}
