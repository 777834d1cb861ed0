import Foundation
import Testing
@testable import Trove

/// NFC and NFD come from the standard library (the shell links no Foundation); these hold them
/// to Foundation's, which may know an older Unicode version than the standard library.
@Suite("Unicode normalization")
struct UnicodeNormalizationTests {
    @Test func everyScalarDecomposesAsFoundationDecomposesIt() {
        var mismatches: [String] = []
        for code in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(code) else { continue }
            let s = String(Character(scalar))
            let ours = Array(s.nfd.unicodeScalars), foundations = Array(s.decomposedStringWithCanonicalMapping.unicodeScalars)
            // Where Foundation leaves a scalar alone, it may not know the scalar yet.
            if ours != foundations && foundations != [scalar] { mismatches.append(String(code, radix: 16)) }
            // Either way the decomposition is the same string to `==`, and composing it gives
            // back the scalar's NFC (a table older than the standard library's fails both).
            if s.nfd != s { mismatches.append("== " + String(code, radix: 16)) }
            if Array(s.nfd.nfc.unicodeScalars) != Array(s.nfc.unicodeScalars) { mismatches.append("nfc " + String(code, radix: 16)) }
        }
        #expect(mismatches.isEmpty, "U+\(mismatches.prefix(10).joined(separator: ", U+"))")
    }

    @Test func marksAreReorderedByCombiningClassAcrossDecompositions() {
        // ệ (U+1EC7) is e + U+0323 (class 220) + U+0302 (230); a U+0301 (230) after it stays last,
        // and a U+0316 (220) typed after the acute moves before it but after U+0323.
        let samples = [
            "\u{1EC7}\u{301}", "\u{1EC7}\u{301}\u{316}", "a\u{301}\u{323}", "\u{E9}\u{327}",
            "\u{AC00}\u{AC01}\u{D7A3}", "\u{1E0A}\u{323}", "q\u{307}\u{323}", "\u{212B}\u{F900}",
            "\u{FB2C}\u{5B0}", "Crème brûlée, Ångström, 한국어", "\u{301}\u{323}x",
        ]
        for s in samples {
            #expect(Array(s.nfd.unicodeScalars) == Array(s.decomposedStringWithCanonicalMapping.unicodeScalars), "\(s.debugDescription)")
            #expect(Array(s.nfc.unicodeScalars) == Array(s.precomposedStringWithCanonicalMapping.unicodeScalars), "\(s.debugDescription)")
        }
    }

    @Test func asciiAndEmptyStringsAreTheirOwnForms() {
        for s in ["", "plain ASCII", "tab\tand\nnewline"] {
            #expect(Array(s.nfd.utf8) == Array(s.utf8))
            #expect(Array(s.nfc.utf8) == Array(s.utf8))
        }
    }
}
