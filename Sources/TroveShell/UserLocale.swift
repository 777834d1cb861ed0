#if canImport(Glibc)
import Glibc
#endif
import CLibEdit
import TrovePostgres

/// The user's character encoding: libedit needs it to edit UTF-8, a table to choose
/// box-drawing characters, and libpq to choose its encoding when a URL asks for
/// `client_encoding=auto`.
///
/// Only LC_CTYPE: each other category costs files to load, and would change only
/// strerror's language (messages stay English, as the rest of the shell's). Not in every
/// process: `setlocale` reads the locale's files (its cost: Benchmarks/RESULTS.md, the
/// start-up table), which a one-shot command that prints csv or JSON lines to a pipe never
/// needs.
///
/// `setlocale` is not thread-safe, so ``adoptAtStart(_:terminal:)`` adopts it before the store
/// opens (and with it any thread) whenever the command line says it will be needed. What the
/// command line cannot tell, a `.mode table` in a script whose output goes to a pipe or a
/// file, adopts it lazily when that first table is drawn, with the store open; so does a
/// `.open` or `.copy` of a PostgreSQL URL there.
enum UserLocale {
    /// Adopts the locale's LC_CTYPE (once) and says whether it encodes text as UTF-8.
    static let isUTF8: Bool = {
        setlocale(LC_CTYPE, "")
        return trove_locale_is_utf8() != 0
    }()

    /// Adopts the locale now when the session will need it: at the prompt (libedit), when
    /// standard output is a terminal (tables by default, or after `.mode table`), with
    /// `--table`, or on a PostgreSQL database.
    static func adoptAtStart(_ options: CommandLineOptions, terminal: Terminal) {
        guard terminal.isUTF8 == nil else { return }
        let interactive = options.scripts.isEmpty && terminal.stdinIsTerminal
        if interactive || terminal.stdoutIsTerminal || options.outputMode == .table
            || options.database.map(PostgresConnection.isURL) == true {
            _ = isUTF8
        }
    }
}
