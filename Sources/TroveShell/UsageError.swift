import Trove

/// A command line the shell cannot run; it exits with status 2.
public struct UsageError: DescribedError, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
