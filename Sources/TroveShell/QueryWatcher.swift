#if canImport(Glibc)
import Glibc
#endif
import Trove

/// `watch QUERY`: prints the query's results, then one JSON line per change to them as
/// commits land (from any process), until Ctrl-C (SIGINT), which ends the statement
/// successfully. Each line is flushed at once, so it works at the head of a pipeline.
///
/// After each commit the query runs again and the new results are compared with the last
/// ones (`ResultDiff`): `{"op": "insert", "index": I, "object": {...}}`, `{"op": "delete",
/// "index": I, "object": {...}}`, `{"op": "move", "from": I, "to": J}` and `{"op": "update",
/// "index": I, "object": {...}}`. A projected or grouped query diffs its rows the same way
/// (a group is the same row while its key values are); an aggregate prints its new value,
/// one JSON line, whenever a commit changes it.
final class QueryWatcher {
    let store: Store
    let query: StoreQuery
    let context: ExecutionContext

    init(store: Store, query: StoreQuery, context: ExecutionContext) {
        self.store = store
        self.query = query
        self.context = context
    }

    func run() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw StatementError("watch: cannot create a pipe: \(SystemError(errno: errno).message)") }
        defer { close(fds[0]); close(fds[1]) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let wakeUp = fds[1]
        // Observe before the first run, so that no commit can slip in between.
        let observation = store.observeCommits { _ in
            var byte: UInt8 = 1
            _ = write(wakeUp, &byte, 1)
        }
        defer { withExtendedLifetime(observation) {} }
        try Interrupt.catching {
            // A Ctrl-C pressed at the prompt earlier may have left a byte in the self-pipe.
            Interrupt.drainWakeUps()
            var previous = try evaluate()
            switch previous {
            case .rows(let columns, let entries): context.show(.objects(ResultSet(columns: columns, rows: entries.map(\.object))))
            case .value(let value): context.show(.value(name: StoreQuery.function(of: query.spec.text.text), value))
            }
            while !context.isCancelled {
                let ready = try Interrupt.waitForInput(on: fds[0])
                if context.isCancelled { break }
                guard ready else { continue }
                var drain = [UInt8](repeating: 0, count: 256)
                while drain.withUnsafeMutableBytes({ read(fds[0], $0.baseAddress, $0.count) }) > 0 {}
                let current = try evaluate()
                switch (previous, current) {
                case (.rows(_, let old), .rows(_, let new)):
                    for event in ResultDiff.events(from: old, to: new) { context.emit(event) }
                case (.value(let old), .value(let new)) where AggregateChange.between(old, new):
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
        case value(Value)
    }

    private func evaluate() throws -> Observed {
        try store.read { snapshot in
            switch try query.answer(in: snapshot) {
            case .objects(let results):
                let schema = snapshot.schema
                let model = schema[results.modelName]
                let links = model.map { StoreDump.linksWrittenNested($0, schema: schema) } ?? []
                return .rows(columns: model.map(ResultRows.columns(of:)) ?? [], try zip(results.references, results).map { reference, object in
                    ResultDiff.Entry(reference: reference, object: try ResultRows.json(of: object, links: links, schema: schema, cyclesEnd: true))
                })
            case .rows(let rows):
                return .rows(columns: rows.columns, zip(rows, try ResultRows.json(rows, in: snapshot, cyclesEnd: true)).map { ResultDiff.Entry(identity: $0.identity, object: $1) })
            case .value(let value):
                return .value(value)
            }
        }
    }
}
