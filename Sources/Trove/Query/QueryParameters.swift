/// The `$n` parameters a predicate uses, and the one rule of how many arguments a statement
/// takes: one for each `$n` up to the highest it uses, and no more.
///
/// Too few is refused where the missing `$n` stands, as `QueryBinder` binds it. Too many is
/// refused here: an argument that no `$n` reads is a mistake the query would otherwise hide
/// (`$0` written twice for two values gives a wrong answer, not an error), as GRDB refuses
/// arguments that do not match a statement. A caller that binds one list of values to
/// statements that each use some of them allows extras (``allowingExtraArguments(_:)``): the
/// shell binds its `--arg` values to every statement of a run (shell contract, "Parameters").
///
/// Every entry point that takes arguments checks through here: a predicate's
/// (`ParsedQueryCache.template`, under `Snapshot.objects(_:where:)`, `Results.filter`,
/// `update`/`delete(_:where:)`, `ResultsRequest` and the repositories), a statement's
/// (`QueryExecutor.run` and `answer`: `query`, `rows`, `aggregate`, `explain`) and
/// PostgreSQL's (`QueryCheck`).
package struct QueryParameters: Sendable {
    /// One more than the highest `$n` the predicate uses: the number of arguments it takes.
    package let count: Int
    /// Where the highest `$n` first stands; the start of the text when there is none.
    let location: QuerySourceLocation

    package init(_ predicate: QueryPredicate?) {
        var highest = -1
        var location = QuerySourceLocation.start
        func visitExpression(_ expression: QueryExpression) {
            switch expression.kind {
            case .parameter(let index):
                if index > highest {
                    highest = index
                    location = expression.range.start
                }
            case .literal(.list(let elements)):
                elements.forEach(visitExpression)
            case .subqueryCount(let subquery):
                visitPredicate(subquery.predicate)
            case .keyPath, .literal, .aggregate:
                break
            }
        }
        func visitPredicate(_ predicate: QueryPredicate) {
            switch predicate.kind {
            case .constant:
                break
            case .comparison(let comparison):
                visitExpression(comparison.left)
                visitExpression(comparison.right)
            case .between(let between):
                visitExpression(between.value)
                visitExpression(between.lower)
                visitExpression(between.upper)
            case .not(let operand):
                visitPredicate(operand)
            case .and(let operands), .or(let operands):
                operands.forEach(visitPredicate)
            }
        }
        if let predicate { visitPredicate(predicate) }
        count = highest + 1
        self.location = location
    }

    /// Throws a `QueryError` (`.invalidParameter`, pointing into `statement`) when
    /// `arguments` hold more values than the predicate uses, unless extras are allowed.
    func check(_ arguments: [Value], statement: String?) throws(QueryError) {
        guard arguments.count > count, !Self.extrasAllowed else { return }
        let given = "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") given"
        let takes = switch count {
        case 0: "the query has no parameter ($0, $1, ...)"
        case 1: "the query takes 1 ($0)"
        case 2: "the query takes 2 ($0 and $1)"
        default: "the query takes \(count) ($0 to $\(count - 1))"
        }
        throw QueryError(.invalidParameter, "\(given), but \(takes)", at: location, in: statement)
    }

    /// Checks `arguments` against the parameters of `predicate`; reads the predicate only
    /// when there are arguments.
    package static func check(_ arguments: [Value], of predicate: QueryPredicate?, statement: String?) throws(QueryError) {
        if arguments.isEmpty { return }
        try QueryParameters(predicate).check(arguments, statement: statement)
    }

    /// Runs `body` with extra arguments allowed: a statement run in it may be given more
    /// arguments than it uses, as the shell's `--arg` values are given to every statement.
    package static func allowingExtraArguments<R>(_ body: () throws -> R) rethrows -> R {
        try $extrasAllowed.withValue(true, operation: body)
    }

    /// Read only when a statement is given more arguments than it uses.
    @TaskLocal private static var extrasAllowed = false
}
