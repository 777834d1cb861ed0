#if canImport(Glibc)
import Glibc
#endif
import CLibEdit

/// Facts about the process's terminal, gathered once at start.
struct Terminal: Sendable {
    var stdinIsTerminal: Bool
    var stdoutIsTerminal: Bool
    var stderrIsTerminal: Bool
    /// UTF-8 locale: tables use box-drawing characters. Nil: the user's locale, read when
    /// the first table is drawn (``UserLocale``).
    var isUTF8: Bool?

    static func current() -> Terminal {
        Terminal(stdinIsTerminal: isatty(STDIN_FILENO) == 1,
                 stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
                 stderrIsTerminal: isatty(STDERR_FILENO) == 1,
                 isUTF8: nil)
    }

    /// The width tables must fit: the terminal's (TIOCGWINSZ), else `$COLUMNS`, else none.
    /// Asked before each result, so a resized window is honoured.
    func width() -> Int? {
        if stdoutIsTerminal {
            let columns = Int(trove_terminal_columns(STDOUT_FILENO))
            if columns > 0 { return columns }
        }
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return columns
        }
        return nil
    }
}
