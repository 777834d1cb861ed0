#if canImport(Glibc)
import Glibc
#endif
import Trove
import TrovePostgres

/// `watch QUERY` on PostgreSQL: prints the query's results, then one JSON line per change to
/// them (as `QueryWatcher` does on a store) until Ctrl-C.
///
/// Every table of the schema notifies at commit (triggers the schema installs); the watcher
/// LISTENs before the first run, so that no commit slips in between, then waits on the
/// connection's socket, re-runs the query after each notification and prints the
/// differences. Commits from any client on any host arrive.
final class PostgresWatcher {
    let store: PostgresStore
    let text: String
    let arguments: [Value]
    let context: ExecutionContext

    init(store: PostgresStore, text: String, arguments: [Value], context: ExecutionContext) {
        self.store = store
        self.text = text
        self.arguments = arguments
        self.context = context
    }

    func run() throws {
        try store.listen()
        try Interrupt.catching {
            Interrupt.drainWakeUps()
            var previous = try evaluate()
            switch previous {
            case .rows(let columns, let entries): context.show(.objects(ResultSet(columns: columns, rows: entries.map(\.object))))
            case .value(let name, let value): context.show(.value(name: name, value))
            }
            while !context.isCancelled {
                let ready = try Interrupt.waitForInput(on: store.connection.socket)
                if context.isCancelled { break }
                guard ready else { continue }
                guard !(try store.connection.takeNotifications()).isEmpty else { continue }
                let current = try evaluate()
                switch (previous, current) {
                case (.rows(_, let old), .rows(_, let new)):
                    for event in ResultDiff.events(from: old, to: new) { context.emit(event) }
                case (.value(_, let old), .value(_, let new)) where AggregateChange.between(old, new):
                    context.emit(value: new)
                default:
                    break
                }
                previous = current
            }
            Interrupt.drainWakeUps()
        }
    }

    /// What a run of the query gives: rows to compare (objects, projected rows or groups), or
    /// an aggregate's value.
    private enum Observed {
        case rows(columns: [String], [ResultDiff.Entry])
        case value(name: String, Value)
    }

    private func evaluate() throws -> Observed {
        let (answer, json) = try store.runForShell(text, arguments: arguments)
        switch answer {
        // Identities by their bytes: strings would make two objects whose keys are canonically
        // equivalent (`é`, `e` + U+0301) one.
        case .objects(let objects):
            return .rows(columns: objects.columns, zip(objects.keys, json).map { ResultDiff.Entry(identity: Array($0.utf8), object: $1) })
        case .rows(let rows):
            return .rows(columns: rows.columns, zip(rows.identities, json).map { ResultDiff.Entry(identity: Array($0.utf8), object: $1) })
        case .value(let name, let value):
            return .value(name: name, value)
        }
    }
}
