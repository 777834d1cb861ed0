/// Canonical normalization forms without Foundation's ICU, which the shell does not link.
///
/// NFC comes from the standard library (which normalizes to compare strings); NFD from the
/// generated table in `CanonicalDecompositions.swift`, Hangul by formula, then marks put in
/// canonical order. Both serve only non-ASCII text: callers test for ASCII first.
extension String {
    /// The string in Normalization Form C (`precomposedStringWithCanonicalMapping`).
    var nfc: String { String(decoding: _nfcCodeUnits, as: UTF8.self) }

    /// The string in Normalization Form D (`decomposedStringWithCanonicalMapping`).
    var nfd: String {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(utf8.count)
        for scalar in unicodeScalars { Self.appendDecomposition(of: scalar, to: &scalars) }
        Self.putMarksInCanonicalOrder(&scalars)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    private static func appendDecomposition(of scalar: Unicode.Scalar, to out: inout [Unicode.Scalar]) {
        let code = scalar.value
        // Nothing below U+00C0 decomposes.
        if code < 0xC0 { out.append(scalar); return }
        if let hangul = HangulSyllable(code) {
            hangul.append(to: &out)
            return
        }
        let keys = canonicalDecompositionKeys
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < code { low = mid + 1 } else { high = mid }
        }
        guard low < keys.count, keys[low] == code else { out.append(scalar); return }
        let range = Int(canonicalDecompositionStarts[low])..<Int(canonicalDecompositionStarts[low + 1])
        for value in canonicalDecompositionValues[range] { out.append(Unicode.Scalar(value)!) }
    }

    /// Stable-sorts each run of combining marks by combining class (the canonical ordering
    /// algorithm); a class-0 scalar ends a run.
    private static func putMarksInCanonicalOrder(_ scalars: inout [Unicode.Scalar]) {
        guard scalars.count > 1 else { return }
        for i in 1..<scalars.count {
            let current = scalars[i]
            let currentClass = current.properties.canonicalCombiningClass.rawValue
            if currentClass == 0 { continue }
            var j = i
            while j > 0 {
                let previousClass = scalars[j - 1].properties.canonicalCombiningClass.rawValue
                if previousClass <= currentClass { break }
                scalars[j] = scalars[j - 1]
                j -= 1
            }
            scalars[j] = current
        }
    }
}

/// A precomposed Hangul syllable, decomposed arithmetically (Unicode §3.12).
private struct HangulSyllable {
    static let base: UInt32 = 0xAC00, leadBase: UInt32 = 0x1100, vowelBase: UInt32 = 0x1161, trailBase: UInt32 = 0x11A7
    static let vowelCount: UInt32 = 21, trailCount: UInt32 = 28, count: UInt32 = 11_172
    let index: UInt32

    init?(_ code: UInt32) {
        guard code >= Self.base, code < Self.base + Self.count else { return nil }
        index = code - Self.base
    }

    func append(to out: inout [Unicode.Scalar]) {
        let perLead = Self.vowelCount * Self.trailCount
        out.append(Unicode.Scalar(Self.leadBase + index / perLead)!)
        out.append(Unicode.Scalar(Self.vowelBase + (index % perLead) / Self.trailCount)!)
        let trail = index % Self.trailCount
        if trail != 0 { out.append(Unicode.Scalar(Self.trailBase + trail)!) }
    }
}
