#if canImport(Glibc)
import Glibc
#endif
import Trove
import TrovePostgres

/// The REPL: prompts `trove> ` (and `  ...> ` inside an unfinished statement), keeps
/// going after errors, cancels input on Ctrl-C and leaves on Ctrl-D or `.quit`.
final class InteractiveShell {
    static let prompt = "trove> "
    static let continuationPrompt = "  ...> "

    private let session: ShellSession
    private let historyFile: String?

    init(session: ShellSession, environment: [String: String] = InteractiveShell.environment()) {
        self.session = session
        historyFile = Self.historyPath(environment)
    }

    /// `$TROVE_HISTORY`, else `~/.trove_history`; an empty `$TROVE_HISTORY` keeps no file.
    static func historyPath(_ environment: [String: String]) -> String? {
        if let path = environment["TROVE_HISTORY"] { return path.isEmpty ? nil : path }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.trove_history" }
        return nil
    }

    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for name in ["TROVE_HISTORY", "TROVE_INIT", "HOME"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    func run() {
        Interrupt.installHandler()
        let completer = ShellCompleter(models: { [session] in (try? session.backend.models()) ?? [] })
        guard let editor = LineEditor(historyFile: historyFile, complete: { completer.complete(line: $0, cursor: $1) }) else {
            session.report(StatementError("cannot start the line editor"), statement: nil, origin: .interactive)
            return
        }
        session.console.write("trove \(TroveInfo.version): enter .help for help, Ctrl-D to leave\n")
        session.console.flush()
        var splitter = StatementSplitter()
        var entry: [String] = []
        while session.exitStatus == nil {
            let prompt = splitter.isIncomplete ? Self.continuationPrompt : Self.prompt
            switch editor.readLine(prompt: prompt) {
            case .endOfInput:
                session.console.write("\n")
                return
            case .interrupted:
                // Ctrl-C drops the line and any unfinished statement, never the shell.
                session.console.write("^C\n")
                session.console.flush()
                splitter.reset()
                entry = []
            case .line(let text):
                var items: [StatementSplitter.Item] = []
                // A recalled history entry may hold several lines.
                for line in text.lines {
                    entry.append(line)
                    items += splitter.feed(line: line, number: entry.count)
                }
                if !splitter.isIncomplete {
                    let statement = entry.joined(separator: "\n")
                    // `.open postgres://USER:PASSWORD@HOST/DB` is kept without its password. An
                    // encrypted store's statements may hold plaintext of its objects, which must
                    // not reach the disk: the editor keeps them in memory, the file never.
                    if statement.contains(where: { !$0.isWhitespace }) {
                        editor.addHistory(PostgresConnection.redactingPasswords(in: statement), saving: !session.backend.isEncrypted)
                    }
                    entry = []
                }
                for item in items where session.exitStatus == nil {
                    _ = session.execute(item, origin: .interactive)
                }
            }
        }
    }
}
