#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TroveStorage

/// Hands each value to every live `AsyncStream` made by ``makeStream()``, in order, with an
/// unbounded buffer: change batches only make sense applied one after another, none skipped.
final class ChangeBroadcast<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var continuations: [UUID: AsyncStream<T>.Continuation] = [:]
    private var finished = false

    func makeStream() -> AsyncStream<T> {
        let (stream, continuation) = AsyncStream<T>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        lock.lock()
        if finished {
            lock.unlock()
            continuation.finish()
            return stream
        }
        continuations[id] = continuation
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.continuations[id] = nil
            self.lock.unlock()
        }
        return stream
    }

    func yield(_ value: T) {
        lock.lock()
        let list = Array(continuations.values)
        lock.unlock()
        for c in list { c.yield(value) }
    }

    /// Ends every stream, and those made later.
    func finish() {
        lock.lock()
        let list = Array(continuations.values)
        continuations = [:]
        finished = true
        lock.unlock()
        for c in list { c.finish() }
    }
}
