#if canImport(Glibc)
import Glibc
#endif
import CLibEdit

/// The user's character encoding, adopted the first time something needs it: libedit, to
/// edit UTF-8, and a table, to choose box-drawing characters.
///
/// Only LC_CTYPE: each other category costs files to load, and would change only
/// strerror's language (messages stay English, as the rest of the shell's). Not at start:
/// `setlocale` reads the locale's files (57k instructions and a dozen system calls), which a
/// one-shot command that prints csv or JSON lines to a pipe never needs.
enum UserLocale {
    /// Adopts the locale's LC_CTYPE (once) and says whether it encodes text as UTF-8.
    static let isUTF8: Bool = {
        setlocale(LC_CTYPE, "")
        return trove_locale_is_utf8() != 0
    }()
}
