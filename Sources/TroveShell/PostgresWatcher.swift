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
            var (columns, previous) = try evaluate()
            context.show(.objects(ResultSet(columns: columns, rows: previous.map(\.object))))
            while !context.isCancelled {
                let ready = try Interrupt.waitForInput(on: store.connection.socket)
                if context.isCancelled { break }
                guard ready else { continue }
                guard !(try store.connection.takeNotifications()).isEmpty else { continue }
                let current: [ResultDiff.Entry]
                (columns, current) = try evaluate()
                for event in ResultDiff.events(from: previous, to: current) { context.emit(event) }
                previous = current
            }
            Interrupt.drainWakeUps()
        }
    }

    private func evaluate() throws -> ([String], [ResultDiff.Entry]) {
        let objects = try store.objects(text, arguments: arguments)
        return (objects.columns, zip(objects.keys, objects.json).map { ResultDiff.Entry(identity: $0, object: $1) })
    }
}
