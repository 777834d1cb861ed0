/// The folded forms of strings under the `[c]` and `[d]` modifiers.
///
/// Two strings are equal under a modifier exactly when their folded forms are equal, byte for
/// byte, so a folded form serves both as the comparison operand and as an index key. Folded
/// forms are in NFC, so canonically equivalent spellings (`é` precomposed or `e` + U+0301)
/// fold alike.
///
/// - `[c]` applies full, locale-independent Unicode case folding (CaseFolding.txt, statuses
///   C and F): `straße` ==[c] `STRASSE`, `ΣΊΣΥΦΟΣ` ==[c] `σίσυφος` (final sigma folds to σ).
///   Turkish dotless `ı` stays a letter of its own, and `İ` folds to `i` + U+0307, so
///   `İstanbul` ==[c] `istanbul` is false while ==[cd] is true.
/// - `[d]` decomposes canonically and removes nonspacing marks (Mn): `Ärger` ==[d] `Arger`.
///   Letters that do not decompose, like `ø`, `ł` or `đ`, stay as they are.
///
/// Pure ASCII strings take a fast path that allocates only when `[c]` meets an upper-case letter.
package enum StringFolding {
    /// The folded form of `string` under `options`, in NFC.
    package static func fold(_ string: String, options: StringComparisonOptions) -> String {
        var string = string
        let asciiResult: String?? = string.withUTF8 { bytes in
            guard isASCII(bytes) else { return nil }
            guard options.contains(.caseInsensitive), bytes.contains(where: { $0 &- 0x41 < 26 }) else {
                return .some(nil)
            }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (i, byte) in bytes.enumerated() { buffer[i] = byte &- 0x41 < 26 ? byte | 0x20 : byte }
                return bytes.count
            }
        }
        switch asciiResult {
        case .some(.some(let lowered)): return lowered
        case .some(.none): return string
        case .none: return foldUnicode(string, options: options)
        }
    }

    /// The full case folding of one scalar, appended to `scalars`.
    package static func appendCaseFolded(_ scalar: Unicode.Scalar, to scalars: inout String.UnicodeScalarView) {
        if scalar.isASCII {
            let value = scalar.value
            scalars.append(value &- 0x41 < 26 ? Unicode.Scalar(UInt8(value | 0x20)) : scalar)
            return
        }
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else {
            scalars.append(scalar)
            return
        }
        // Cherokee is the one script whose case folding maps to upper case (its lower-case
        // letters were encoded later than the upper-case ones).
        if (0x13F8...0x13FD).contains(scalar.value) || (0xAB70...0xABBF).contains(scalar.value) {
            scalars.append(contentsOf: properties.uppercaseMapping.unicodeScalars)
            return
        }
        // The stdlib exposes full lower and upper case mappings but not case folding. Lowering,
        // raising and lowering again reaches the case-folded form for every other scalar, up to
        // canonical equivalence (which the final NFC step absorbs): ß -> SS -> ss, ẞ -> ß -> ss,
        // ς -> Σ -> σ, ﬁ -> FI -> fi. The test suite checks this against reference foldings.
        scalars.append(contentsOf: properties.lowercaseMapping.uppercased().lowercased().unicodeScalars)
    }

    /// Whether `bytes` are all ASCII, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    private static func foldUnicode(_ string: String, options: StringComparisonOptions) -> String {
        var folded = string
        if options.contains(.caseInsensitive) {
            var scalars = String.UnicodeScalarView()
            for scalar in string.unicodeScalars { appendCaseFolded(scalar, to: &scalars) }
            folded = String(scalars)
        }
        if options.contains(.diacriticInsensitive) {
            // After case folding, so that marks folding introduces (İ -> i + U+0307) go too.
            var stripped = String.UnicodeScalarView()
            for scalar in folded.nfdScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                stripped.append(scalar)
            }
            folded = String(stripped)
        }
        return folded.nfc
    }
}
