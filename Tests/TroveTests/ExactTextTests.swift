import Testing
@testable import Trove

/// `ExactText`, the key of the caches kept by a statement's text: equal when the bytes are.
@Suite struct ExactTextTests {
    @Test func textsAreEqualWhenTheirBytesAre() {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        // Of one length, canonically equivalent, other bytes: told apart by the comparison of
        // bytes, not the lengths.
        let pairs = [(composed, decomposed), (composed + decomposed, decomposed + composed),
                     ("Item where name MATCHES '\(composed + decomposed).*'", "Item where name MATCHES '\(decomposed + composed).*'")]
        for (a, b) in pairs {
            #expect(a == b)
            #expect(ExactText(a) != ExactText(b))
            #expect(ExactText(a) == ExactText(a))
        }
        // Equal bytes in other storage (built at run time, not the literal).
        let long = "Person where name == $0 SORT(age) LIMIT(10)"
        let built = String(decoding: Array(long.utf8), as: UTF8.self)
        #expect(ExactText(long) == ExactText(built))
        #expect(ExactText(long).hashValue == ExactText(built).hashValue)
        #expect(ExactText("") == ExactText(String(decoding: [UInt8](), as: UTF8.self)))
        #expect(ExactText("a") != ExactText("b"))
        #expect(Set([ExactText(composed), ExactText(decomposed), ExactText(String(decoding: Array(composed.utf8), as: UTF8.self))]).count == 2)
    }
}
