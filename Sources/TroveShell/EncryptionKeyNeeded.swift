import Trove

/// Opening an encrypted store without a key: the shell asks for it at a terminal, and
/// otherwise exits with status 2 and this message.
public struct EncryptionKeyNeeded: DescribedError, Sendable {
    /// The store's path as the command line gave it.
    public var path: String
    public init(path: String) { self.path = path }
    public var message: String { "cannot open '\(path)': the store is encrypted: give its key with --key-file FILE" }
    public var description: String { message }
}
