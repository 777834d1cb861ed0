#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An error whose message is its `description`, given as its `errorDescription` too, so that
/// `error.localizedDescription` (what an alert or a log line shows of a caught `any Error`)
/// says what went wrong rather than Foundation's "The operation could not be completed.
/// (Trove.StoreError error 13.)".
public protocol DescribedError: LocalizedError, CustomStringConvertible {}

extension DescribedError {
    /// The error's `description`.
    public var errorDescription: String? { description }
}
