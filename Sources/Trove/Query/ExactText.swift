#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A text as a cache key: equal to another when their UTF-8 bytes are.
///
/// `String`'s `==` is canonical equivalence, under which `é` and `e` + U+0301 are one text. A
/// statement's meaning can depend on its bytes: `MATCHES` meets text as stored, so
/// `name MATCHES 'é.*'` written with either spelling matches different strings, and a string
/// primary key is the spelling written. So whatever is kept by a statement's text (parses,
/// bindings, translations, on both backends) or by a pattern's is kept by this, and a second
/// spelling never takes the first's entry.
package struct ExactText: Hashable, Sendable {
    package let text: String

    @inlinable
    package init(_ text: String) {
        self.text = text
    }

    /// Inlined up to the comparison of bytes, which only texts of one length reach: a cache
    /// looked up in a loop compares its key with a few others, mostly of other lengths, and
    /// with the text it keeps itself, whose representation is the caller's.
    @inlinable
    package static func == (a: ExactText, b: ExactText) -> Bool {
        // One representation (the same storage and length, or the same small string's bits)
        // holds one sequence of bytes; `String`'s `==` starts with the same check.
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size {
            let x = unsafeBitCast(a.text, to: (UInt64, UInt64).self), y = unsafeBitCast(b.text, to: (UInt64, UInt64).self)
            if x.0 == y.0 && x.1 == y.1 { return true }
        }
        return a.text.utf8.count == b.text.utf8.count && sameBytes(a.text, b.text)
    }

    /// Whether `a` and `b`, of one length in UTF-8, hold the same bytes.
    @usableFromInline
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// `String`'s hash, the same for canonically equivalent texts: texts with equal bytes are
    /// equivalent, so they hash alike, as `Hashable` asks; two spellings of one text share a
    /// hash and are told apart by `==`.
    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
