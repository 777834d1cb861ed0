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
/// "index": I, "object": {...}}`.
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
            context.show(.objects(ResultSet(columns: columns, rows: previous.map(\.object))))
            while !context.isCancelled {
                var polled = [pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0),
                              pollfd(fd: Interrupt.wakeUpReadEnd, events: Int16(POLLIN), revents: 0)]
                let n = poll(&polled, Interrupt.wakeUpReadEnd >= 0 ? 2 : 1, -1)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StatementError("watch: poll failed: \(SystemError(errno: errno).message)")
                }
                if context.isCancelled { break }
                if polled[1].revents & Int16(POLLIN) != 0 { Interrupt.drainWakeUps() }
                guard polled[0].revents & Int16(POLLIN) != 0 else { continue }
                var drain = [UInt8](repeating: 0, count: 256)
                while drain.withUnsafeMutableBytes({ read(fds[0], $0.baseAddress, $0.count) }) > 0 {}
                let current = try evaluate()
                for event in ResultDiff.events(from: previous, to: current) { context.emit(event) }
                previous = current
            }
            Interrupt.drainWakeUps()
        }
    }

    private var columns: [String] {
        store.schema[query.modelName].map(ResultRows.columns(of:)) ?? []
    }

    private func evaluate() throws -> [ResultDiff.Entry] {
        try store.read { snapshot in
            let results = try query.run(in: snapshot, context: context)
            return try zip(results.references, results).map { reference, object in
                ResultDiff.Entry(reference: reference, object: try object.json())
            }
        }
    }
}
