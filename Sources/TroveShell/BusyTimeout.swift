/// How long a write waits for another writer of the store (`--timeout`, `.timeout`): a whole
/// number of milliseconds (0: fail at once), or `wait`, the default: wait until that writer is
/// done, saying on standard error after a second which process it waits for.
enum BusyTimeout {
    /// `text` as a timeout: nil for `wait`, or throws a message naming what it wanted.
    static func parse(_ text: String) throws(UsageError) -> Duration? {
        if text.lowercased() == "wait" { return nil }
        guard let milliseconds = Int64(text), milliseconds >= 0 else {
            throw UsageError("a timeout is a whole number of milliseconds or 'wait', not '\(text)'")
        }
        return .milliseconds(milliseconds)
    }

    /// The timeout as `.show` and `.timeout` say it.
    static func text(_ timeout: Duration?) -> String {
        guard let timeout else { return "wait" }
        let c = timeout.components
        return "\(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000) ms"
    }
}
