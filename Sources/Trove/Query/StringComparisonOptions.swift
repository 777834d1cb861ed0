/// The `[c]`, `[d]` and `[cd]` modifiers of a string comparison.
package struct StringComparisonOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: UInt8

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: compare with full Unicode case folding (`straße` matches `STRASSE`).
    package static let caseInsensitive = StringComparisonOptions(rawValue: 1 << 0)
    /// `[d]`: ignore diacritics (`é` matches `e`): nonspacing marks are removed after canonical
    /// decomposition.
    package static let diacriticInsensitive = StringComparisonOptions(rawValue: 1 << 1)

    /// The modifier as written in a query: `""`, `"[c]"`, `"[d]"` or `"[cd]"`.
    package var description: String {
        switch (contains(.caseInsensitive), contains(.diacriticInsensitive)) {
        case (false, false): ""
        case (true, false): "[c]"
        case (false, true): "[d]"
        case (true, true): "[cd]"
        }
    }
}
