/// What `.verify` found (``ShellBackend/verify()``): the problems, which fail it, and the
/// warnings, which it prints on standard error before it says `ok`.
public struct VerifyFindings: Sendable, Equatable {
    /// Each problem on a line of its own, naming its page; none when the store is sound.
    public var problems: [String]
    /// What the file shows that a crash leaves as well as damage does: reported, not failed.
    public var warnings: [String]

    public init(problems: [String] = [], warnings: [String] = []) {
        self.problems = problems
        self.warnings = warnings
    }
}
