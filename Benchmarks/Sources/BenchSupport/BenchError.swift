/// A benchmark failure: a peer's error, or engines that disagree.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
