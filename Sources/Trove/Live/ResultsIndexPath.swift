/// The position of an object in a ``ResultsController``: its section and its index in it.
///
/// Trove defines its own type because Foundation's `IndexPath` has `section` and `item` only
/// where UIKit or AppKit add them, not on Linux.
public struct ResultsIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(item: Int, section: Int) {
        self.section = section
        self.item = item
    }

    public static func < (a: ResultsIndexPath, b: ResultsIndexPath) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }

    public var description: String { "[\(section), \(item)]" }
}
