import Trove

/// An error raised while a statement was writing, which names the record or value it
/// concerns and keeps what the write threw. Outside `begin` ... `commit` the statement's own
/// transaction rolls it all back; inside one, the shell fails the open transaction
/// (`TransactionFailure`), as it does for any failed write statement.
struct WriteFailure: Error {
    var underlying: StatementError
    /// The error the write threw, when it was not a `StatementError`: a backend may end the
    /// session over it (a lost connection) instead of reporting it as the statement's.
    var cause: (any Error)?

    init(underlying: StatementError, cause: (any Error)? = nil) {
        self.underlying = underlying
        self.cause = cause
    }

    /// Runs a write; whatever it throws becomes a `WriteFailure`.
    static func wrap<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let failure as WriteFailure {
            throw failure
        } catch let error as StatementError {
            throw WriteFailure(underlying: error)
        } catch let error as QueryError {
            throw WriteFailure(underlying: StatementError(error, at: error.location.offset), cause: error)
        } catch let error as StoreError {
            throw WriteFailure(underlying: StatementError(error, models: []), cause: error)
        } catch {
            throw WriteFailure(underlying: StatementError(String(describing: error)), cause: error)
        }
    }

    /// Runs the write of one record of several, naming it in the error ("record 3: ...");
    /// an error that names no place stands at the record. The error stays what it was
    /// otherwise (one that names an unknown model still says so).
    static func naming<R>(record index: Int, of count: Int, at offset: Int?, _ body: () throws -> R) throws -> R {
        do {
            return try wrap(body)
        } catch var failure as WriteFailure {
            if count > 1 { failure.underlying.message = "record \(index + 1): \(failure.underlying.message)" }
            failure.underlying.offset = failure.underlying.offset ?? offset
            throw failure
        }
    }
}
