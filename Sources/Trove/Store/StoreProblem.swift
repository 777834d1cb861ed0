import TroveStorage

/// One inconsistency ``Store/verify()`` found in the file; its description names the page.
public enum StoreProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file holds fewer pages than the latest version counts: nothing else was checked.
    case truncated(expectedPages: UInt64, presentPages: UInt64)
    /// A page that is neither used nor free: space lost, not data.
    case leakedPage(UInt64)
    /// A page (or, with no page, the file) that fails a check: its checksum, header, type,
    /// key order, or a reference to it.
    case damaged(page: UInt64?, detail: String)
    /// The check stopped at an error other than damage (a failed read, for one).
    case checkFailed(String)

    init(_ problem: VerifyProblem) {
        switch problem {
        case let .truncated(expected, present): self = .truncated(expectedPages: expected, presentPages: present)
        case let .leaked(page): self = .leakedPage(page)
        case let .damaged(page, detail): self = .damaged(page: page, detail: detail)
        case let .walkFailed(detail): self = .checkFailed(detail)
        }
    }

    public var description: String {
        switch self {
        case let .truncated(expected, present): "the file is truncated: \(expected) pages expected, \(present) present"
        case let .leakedPage(page): "page \(page) is leaked: neither used nor free"
        case let .damaged(page, detail): StoreError.StorageFailure.corrupt(page: page, detail: detail).description
        case let .checkFailed(detail): detail
        }
    }
}
