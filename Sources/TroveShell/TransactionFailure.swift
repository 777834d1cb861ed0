/// Whether the explicit transaction open in a session has failed: the one place that decides
/// it, refuses the statements that follow and turns `commit` into a rollback, whichever
/// backend runs them.
///
/// A write statement that fails inside `begin` ... `commit` fails the transaction, whatever
/// made it fail, as an error does in psql. On a store part of the statement may already be
/// in the transaction (an update of several objects that fails at the third); on PostgreSQL
/// the statement ran under a savepoint and left nothing. So that a script gets the same
/// outcome from both, and no statement sees a failed statement's part: every statement
/// after it, reads and `export` and `.dump` included, is refused until `rollback`, and
/// `commit` rolls the transaction back and fails. A read that fails changes nothing, and
/// fails nothing, unless the backend says the transaction cannot go on whatever failed
/// (PostgreSQL's serialization failure, or a lost connection): then it fails the same way.
struct TransactionFailure {
    /// The message of the statement that failed the open transaction.
    private var reason: String?

    /// Forgets a failure: a transaction begins or ends.
    mutating func clear() { reason = nil }

    /// Records that a statement (a write when `isWrite`), run in the open transaction, failed
    /// with `error`; a read fails the transaction only when `failing` (the backend's
    /// transaction cannot go on).
    mutating func record(_ error: any Error, isWrite: Bool, failing: Bool = false) {
        guard isWrite || failing, reason == nil else { return }
        reason = (error as? StatementError)?.message ?? String(describing: error)
    }

    /// Throws the refusal of a statement when the open transaction has failed.
    func refuseIfFailed() throws {
        if let reason {
            throw StatementError("the transaction failed (\(reason)); statements are refused until 'rollback'")
        }
    }

    /// The error of a `commit` of a failed transaction, which is rolled back instead; nil
    /// when it has not failed.
    var commitRefusal: StatementError? {
        reason.map { StatementError("the transaction was rolled back, not committed: a statement in it failed (\($0))") }
    }
}
