#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Decimal {
    /// The nearest `Double`. FoundationEssentials has no `NSDecimalNumber`; the decimal's own
    /// digits, parsed as a `Double`, round correctly (and decimals meet this only in index
    /// keys and comparisons with other numbers, never per object in a scan).
    var doubleValue: Double { Double(description) ?? .nan }
}
