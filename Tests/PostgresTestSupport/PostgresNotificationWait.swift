#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestWaits
import TrovePostgres

extension PostgresConnection {
    /// The payloads of the next notifications the connection receives (after `LISTEN`): all
    /// that have arrived once the first has, waiting on the socket within the wait budget.
    /// Empty, and an issue, if none came.
    public func nextNotifications(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let deadline = DispatchTime.now() + WaitBudget.budget
        while true {
            let payloads = try takeNotifications()
            if !payloads.isEmpty { return payloads }
            let now = DispatchTime.now()
            guard now < deadline else {
                Issue.record("no notification came within the budget", sourceLocation: sourceLocation)
                return []
            }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = (deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1
            let n = poll(&ready, 1, Int32(min(left, UInt64(Int32.max))))
            if n < 0 && errno != EINTR { throw PostgresError("cannot wait on the connection's socket: errno \(errno)") }
        }
    }
}
