#if canImport(Glibc)
import Glibc
#endif
import Trove

/// Runs statements and dot-commands against a backend and prints their results: the
/// execution driver shared by `-c`, `-f`, piped input and the REPL.
final class ShellSession {
    /// The open store; `.open` replaces it.
    private(set) var backend: ShellBackend
    /// Opens the store of `.open`, as the command line's was opened.
    let openBackend: Shell.BackendOpener
    /// Where results go: the console, or the file of `.output` or `.once`.
    private(set) var stdout: OutputSink
    /// Standard output, whatever `.output` says: the REPL's banner and echoes go here.
    let console: OutputSink
    let stderr: OutputSink
    let terminal: Terminal
    /// The values bound to `$0`, `$1`, ...: the `--arg` values, then as `.param` leaves them.
    private(set) var arguments: [String]
    private(set) var readOnly: Bool
    /// How long a write waits for another writer (`--timeout`, `.timeout`); nil: until it is done.
    private(set) var busyTimeout: Duration?
    var settings: FormatterSettings
    var timer = false
    /// `--bail` or `.bail on`: piped input stops at the first error too.
    var bail: Bool
    /// Set by `.quit`/`.exit`: every input loop stops.
    private(set) var exitStatus: Int32?
    /// Whether any statement failed (exit status 1 at the end).
    private(set) var hadError = false
    /// Whether a lost write to standard output has been reported (it is, once).
    private var outputFailureReported = false
    /// Write summaries of an explicit transaction, printed once it commits.
    private var pendingSummaries: [WriteSummary] = []
    /// Whether a statement failed the open transaction.
    private var transactionFailure = TransactionFailure()
    private var readDepth = 0
    /// Whether the innermost running input stops at its first error (for `.read`).
    private var stopOnError = false
    /// The file `.output` or `.once` opened, while output goes there.
    private var redirection: (file: String, output: FileOutput, fd: Int32)?
    /// Commands left until `.once`'s redirection ends: 2 when set, counting `.once` itself.
    private var onceCountdown = 0

    /// Standard input, shared by piped statements, `-f -`, `.read -` and `import MODEL -`.
    let standardInput: LineSource

    init(backend: ShellBackend, stdout: OutputSink, stderr: OutputSink, terminal: Terminal,
         options: CommandLineOptions, busyTimeout: Duration?, standardInput: LineSource,
         openBackend: @escaping Shell.BackendOpener = { _ in UnavailableBackend() }) {
        self.standardInput = standardInput
        self.backend = backend
        self.openBackend = openBackend
        self.stdout = stdout
        self.console = stdout
        self.stderr = stderr
        self.terminal = terminal
        self.arguments = options.arguments
        self.readOnly = options.readOnly
        self.busyTimeout = busyTimeout
        self.bail = options.bail
        settings = FormatterSettings(mode: options.outputMode ?? (terminal.stdoutIsTerminal ? .table : .jsonl),
                                     showHeaders: options.showHeaders ?? true, nullText: options.nullText,
                                     unicodeBoxes: terminal.isUTF8)
    }

    // MARK: Input loops

    /// Runs every statement of `source`. Returns false when it stopped at an error
    /// (`stopOnError`) or at `.quit`; errors are printed as they happen.
    @discardableResult
    func run(_ source: LineSource, origin: InputOrigin, stopOnError: Bool) -> Bool {
        let outerStop = self.stopOnError
        self.stopOnError = stopOnError
        defer { self.stopOnError = outerStop }
        var splitter = StatementSplitter()
        var number = 0
        while exitStatus == nil, let line = source.readLine() {
            number += 1
            for item in splitter.feed(line: line, number: number) {
                let ok = execute(item, origin: origin)
                if exitStatus != nil || (!ok && (stopOnError || bail)) { return false }
            }
        }
        if exitStatus == nil, let unclosed = splitter.unclosed, let unfinished = splitter.finish() {
            report(StatementError("unterminated statement: \(unclosed.what) is never closed", at: unclosed.offset),
                   statement: unfinished, origin: origin)
            return false
        }
        return exitStatus == nil
    }

    /// Runs one item from the splitter; returns whether it succeeded.
    func execute(_ item: StatementSplitter.Item, origin: InputOrigin) -> Bool {
        defer {
            if onceCountdown > 0 {
                onceCountdown -= 1
                if onceCountdown == 0 { endRedirection(origin: origin) }
            }
        }
        switch item {
        case .statement(let statement): return execute(statement, origin: origin)
        case .dotCommand(let command): return executeDotCommand(command, origin: origin)
        }
    }

    // MARK: Statements

    func execute(_ split: SplitStatement, origin: InputOrigin) -> Bool {
        Interrupt.clear()
        let start = ProgressBar.monotonicNanoseconds()
        defer {
            if timer { reportTime(since: start) }
            stdout.flush()
        }
        do {
            if let habit = try habitualMistake(split.text) { throw habit }
            let statement = try StatementRecognizer.recognize(split.text) { [backend] name in
                guard let models = try? backend.models() else { return .unknown }
                guard let model = models.first(where: { $0.name == name }) else { return .noModel }
                return model.primaryKey.map { .named($0) } ?? .noKey
            }
            if readOnly, statement.isWrite {
                throw StatementError.readOnly(statement.keyword, at: 0)
            }
            // The `--arg` values go to every statement of a run, each using those it names
            // (shell contract, "Parameters"): more than a statement uses is no error here.
            try QueryParameters.allowingExtraArguments { try run(statement) }
            if let lost = standardOutputLoss() { throw lost }
            return true
        } catch let error as StatementError {
            report(withNoModelsHint(error), statement: split, origin: origin)
        } catch {
            report(StatementError(String(describing: error)), statement: split, origin: origin)
        }
        return false
    }

    /// `error` with what to do when it names a model and the database has none, whichever
    /// statement named it and whichever layer refused it.
    private func withNoModelsHint(_ error: StatementError) -> StatementError {
        guard error.namesUnknownModel, (try? backend.models().isEmpty) == true else { return error }
        var hinted = error
        hinted.message += " " + CommandTable.noModelsHint
        return hinted
    }

    private func run(_ statement: ShellStatement) throws {
        switch statement {
        case .begin:
            try backend.begin()
            transactionFailure.clear()
        case .commit:
            let summaries = pendingSummaries
            if backend.isInTransaction {
                // A commit that fails leaves no transaction whose writes the summaries tell.
                pendingSummaries = []
                if let refusal = transactionFailure.commitRefusal {
                    transactionFailure.clear()
                    // A connection lost with the transaction has rolled it back as well.
                    try? backend.rollback()
                    throw refusal
                }
            }
            try backend.commit()
            for summary in summaries { print(.written(summary)) }
        case .rollback:
            try backend.rollback()
            transactionFailure.clear()
            pendingSummaries = []
        case .export(let spec, let file):
            // Ctrl-C stops an export as an error, which removes its unfinished file.
            try inTransaction(isWrite: false) { try Interrupt.deferringExit { try export(spec, to: file?.text, at: file?.offset) } }
        default:
            let progress = statement.keyword == "import" ? "importing" : nil
            let context = makeContext(progressLabel: progress)
            defer { context.finishProgress() }
            let result = try inTransaction(isWrite: statement.isWrite) { try backend.execute(statement, context: context) }
            if case .written(let summary) = result, settings.mode.isMachineReadable, backend.isInTransaction {
                // The contract prints a write's line once it has committed.
                pendingSummaries.append(summary)
            } else {
                print(result)
            }
        }
    }

    /// Runs `body`, a statement (a write when `isWrite`), in the open transaction if there is
    /// one: refused when the transaction has failed, and failing it as `TransactionFailure`
    /// says when it fails.
    private func inTransaction<T>(isWrite: Bool, _ body: () throws -> T) throws -> T {
        if backend.isInTransaction { try transactionFailure.refuseIfFailed() }
        do {
            return try body()
        } catch {
            if backend.isInTransaction { transactionFailure.record(error, isWrite: isWrite, failing: backend.transactionCannotGoOn) }
            throw error
        }
    }

    private func makeContext(progressLabel: String?) -> ExecutionContext {
        let bar = progressLabel.map { ProgressBar(label: $0, enabled: terminal.stderrIsTerminal) }
        // A watch whose output is lost (a full disk; a reader gone while SIGPIPE is ignored,
        // so that the write fails instead of killing the process) ends as Ctrl-C ends it.
        let flush: @Sendable (OutputSink) -> Void = { out in
            out.flush()
            if (out as? FileOutput)?.failed == true { Interrupt.request() }
        }
        let context = ExecutionContext(arguments: arguments, emit: { [stdout] object in
            stdout.write(JSONText.string(object) + "\n")
            flush(stdout)
        }, progress: bar, standardInputStream: { [standardInput] in standardInput.takeRemainingInput() })
        context.valueEmitter = { [stdout] value in
            stdout.write(JSONText.bare(value) + "\n")
            flush(stdout)
        }
        context.printer = { [weak self] result in
            guard let self else { return }
            self.print(result)
            flush(self.stdout)
        }
        return context
    }

    private func print(_ result: ShellResult) {
        var settings = self.settings
        if settings.mode == .table { settings.terminalWidth = terminal.width() }
        settings.makeFormatter().format(result, to: stdout)
    }

    /// Streams exported objects: JSON lines to standard output (no FILE or `-`), or to FILE
    /// as a JSON array (`.json`), CSV (`.csv`), TSV (`.tsv`) or JSON lines (anything else). FILE is only
    /// created once the query has run without error, and a regular FILE only replaced once
    /// every row is written (`FileReplacement`).
    /// A file that cannot be written is an error at `offset`, where the statement names it.
    private func export(_ spec: QuerySpec, to file: String?, at offset: Int?) throws {
        enum Format { case jsonLines, jsonArray, csv(Character) }
        let toFile = file != nil && file != "-"
        let format: Format = switch toFile ? file!.lowercased() : "" {
        case let name where name.hasSuffix(".json"): .jsonArray
        case let name where name.hasSuffix(".csv"): .csv(",")
        case let name where name.hasSuffix(".tsv"): .csv("\t")
        default: .jsonLines
        }
        var out: OutputSink = stdout
        var replacement: FileReplacement?
        defer {
            if let abandoned = replacement {
                (out as? FileOutput)?.discard()
                abandoned.abandon()
            }
        }
        let bar = ProgressBar(label: "exporting", enabled: toFile && terminal.stderrIsTerminal)
        defer { bar.finish() }
        var columns: [String] = []
        var written = 0
        try backend.export(spec, context: makeContext(progressLabel: nil), columns: { names in
            columns = names
            if let file, toFile {
                do throws(SystemError) {
                    replacement = try FileReplacement(path: file)
                } catch {
                    throw StatementError("cannot write '\(file)': \(error.message)", at: offset)
                }
                out = FileOutput(fd: replacement!.fd)
            }
            if case .csv(let separator) = format { out.write(CSVFormatter.header(columns, separator: separator)) }
        }, row: { object in
            switch format {
            case .jsonLines: out.write(JSONText.string(object) + "\n")
            case .jsonArray: out.write((written == 0 ? "[\n  " : ",\n  ") + JSONText.string(object))
            case .csv(let separator): out.write(CSVFormatter.record(columns, object, separator: separator))
            }
            written += 1
            if written % 1024 == 0 {
                if Interrupt.isRequested { throw StatementError("export interrupted") }
                bar.update(completed: written, total: nil)
            }
        })
        if case .jsonArray = format { out.write(written == 0 ? "[]\n" : "\n]\n") }
        out.flush()
        if let output = out as? FileOutput, output.failed {
            // Standard output's loss is reported once, after the statement, as for every
            // statement (`standardOutputLoss()`).
            guard output !== console else { return }
            throw StatementError("cannot write '\(file ?? "-")': \(SystemError(errno: output.failure).message)", at: offset)
        }
        if let finished = replacement {
            replacement = nil
            do throws(SystemError) {
                try finished.commit()
            } catch {
                throw StatementError("cannot write '\(file!)': \(error.message)", at: offset)
            }
        }
        if toFile, !settings.mode.isMachineReadable {
            stdout.write("\(written) \(written == 1 ? "object" : "objects") exported to \(file!)\n")
        }
    }

    private func reportTime(since start: UInt64) {
        let elapsed = Double(ProgressBar.monotonicNanoseconds() - start) / 1_000_000
        let rounded = (elapsed * 1000).rounded() / 1000
        stdout.flush()
        stderr.write("Time: \(rounded) ms\n")
        stderr.flush()
    }

    // MARK: Errors

    /// Prints `error: POSITION: message` on standard error; in the REPL also the
    /// statement's line with a caret under the position.
    func report(_ error: StatementError, statement: SplitStatement?, origin: InputOrigin) {
        hadError = true
        stdout.flush()
        var text = "error: "
        if let statement {
            if let offset = error.offset {
                let position = statement.position(ofOffset: offset)
                text += origin.describe(line: position.line, column: position.column)
                text += error.message + "\n"
                if origin == .interactive { text += caret(statement, line: position.line, column: position.column) }
            } else {
                text += origin.describe(line: statement.line, column: nil) + error.message + "\n"
            }
        } else {
            text += error.message + "\n"
        }
        stderr.write(text)
        stderr.flush()
    }

    /// psql's `quit`, `exit` and `help` alone on a line and its backslash commands (`\q`),
    /// SQL's `SELECT ...`, and a clause starting a line as if the question on the line before
    /// went on, said as what does that here, unless a model has that name.
    private func habitualMistake(_ text: String) throws -> StatementError? {
        let blanks = text.prefix { $0 == " " || $0 == "\t" }
        let rest = text.dropFirst(blanks.count)
        let clause = String(rest.prefix { $0.isLetter })
        if QueryParser.clauseKeywords.contains(clause.uppercased()), rest.dropFirst(clause.count).drop(while: { $0 == " " || $0 == "\t" }).first == "(",
           try !backend.models().contains(where: { $0.name == clause }) {
            return StatementError("\(clause.uppercased())(...) cannot start a statement: " + CommandTable.continuation, at: blanks.utf8.count)
        }
        let word = String(rest.prefix { !$0.isWhitespace && $0 != ";" })
        let lowercased = word.lowercased()
        if word.hasPrefix("\\") {
            // psql's backslash commands: no model name starts with a backslash.
            return StatementError("unknown command '\(word)'; " + (CommandTable.habits[lowercased] ?? "psql's backslash commands are dot-commands here: .help lists them"),
                                  at: blanks.utf8.count)
        }
        guard let habit = CommandTable.habits[lowercased], !lowercased.hasPrefix("."),
              lowercased == "select" || rest.split(whereSeparator: \.isWhitespace).count == 1,
              try !backend.models().contains(where: { $0.name == word }) else { return nil }
        return StatementError.unknownModel(word, "; \(habit)", at: blanks.utf8.count)
    }

    private func caret(_ statement: SplitStatement, line: Int, column: Int) -> String {
        let lines = statement.text.lines
        let index = line - statement.line
        guard index >= 0, index < lines.count else { return "" }
        let prefixColumns = index == 0 ? statement.column - 1 : 0
        let source = String(repeating: " ", count: prefixColumns) + lines[index]
        let before = DisplayWidth.of(String(source.prefix(column - 1)))
        return "  " + source + "\n  " + String(repeating: " ", count: before) + "^\n"
    }

    // MARK: Dot-commands

    func executeDotCommand(_ statement: SplitStatement, origin: InputOrigin) -> Bool {
        let text = statement.text
        do {
            try run(try DotCommand.parse(text), origin: origin)
            if let lost = standardOutputLoss() {
                report(lost, statement: statement, origin: origin)
                return false
            }
            return true
        } catch is AlreadyReported {
            return false
        } catch let error as StatementError {
            report(withNoModelsHint(DotCommand.errorOffset(in: text).map(error.placed) ?? error), statement: statement, origin: origin)
        } catch {
            report(StatementError(String(describing: error), at: DotCommand.errorOffset(in: text)), statement: statement, origin: origin)
        }
        return false
    }

    /// A `.read` file stopped at an error it has printed already.
    private struct AlreadyReported: Error {}

    private func run(_ command: DotCommand, origin: InputOrigin) throws {
        switch command {
        case .help(let topic):
            guard let topic else { stdout.write(HelpText.shellHelp); return }
            guard let lines = HelpText.help(on: topic) else {
                throw StatementError("no command or statement named '\(topic)'; .help lists them all")
            }
            stdout.write(lines)
        case .models:
            for model in try backend.models() { stdout.write(model.name + "\n") }
        case .schema(let name):
            let models = try backend.models()
            guard let name else {
                stdout.write(SchemaText.file(models, schemaVersion: try backend.schemaVersion()) + "\n")
                return
            }
            guard let model = models.first(where: { $0.name == name }) else { throw StatementError.noModel(named: name, among: models.map(\.name)) }
            stdout.write(SchemaText.json(model) + "\n")
        case .mode(let mode):
            if let mode { settings.mode = mode } else { stdout.write(settings.mode.rawValue + "\n") }
        case .headers(let on): settings.showHeaders = on
        case .timer(let on): timer = on
        case .bail(let on): bail = on
        case .read(let file):
            guard readDepth < 16 else { throw StatementError(".read nests too deeply (a file reads itself?)") }
            let source: LineSource
            do {
                source = file == "-" ? standardInput : try LineReader(path: file)
            } catch {
                throw StatementError("cannot read '\(file)': \(error.message)")
            }
            readDepth += 1
            defer { readDepth -= 1 }
            if !run(source, origin: file == "-" ? .standardInput : .file(file), stopOnError: stopOnError),
               exitStatus == nil {
                throw AlreadyReported()
            }
        case .quit: exitStatus = 0
        case .exit(let status): exitStatus = status
        case .print(let text): stdout.write(text + "\n")
        case .show:
            let onOff = { (b: Bool) in b ? "on" : "off" }
            // Commands, -c and -f stop at an error whatever .bail says, and the prompt never
            // does, whatever it says: .show says what holds for the input that runs it.
            let bailText = origin == .interactive && bail ? "on (for .read; the prompt goes on)" : onOff(bail || stopOnError)
            stdout.write("""
                     mode: \(settings.mode.rawValue)
                  headers: \(onOff(settings.showHeaders))
                nullvalue: \(JSONText.string(.string(settings.effectiveNullText)))
                   output: \(redirection?.file ?? "stdout")
                    timer: \(onOff(timer))
                     bail: \(bailText)
                 readonly: \(onOff(readOnly))
                  timeout: \(BusyTimeout.text(busyTimeout))
                     args: \(arguments.isEmpty ? "(none)" : arguments.map { JSONText.string(.string($0)) }.joined(separator: " "))\n
                """)
        case .backup(let file, let keyFile):
            let key: [UInt8]?
            do { key = try keyFile.map { path throws(UsageError) in try EncryptionKey(file: path).bytes } } catch {
                throw StatementError(error.message)
            }
            _ = try backend.writeCopy(toFile: file, encryptionKey: key)
        case .copy(let target, let replacing):
            if backend.isInTransaction {
                throw StatementError("cannot copy inside a transaction ('commit' or 'rollback' first)")
            }
            try backend.copy(to: target, replacing: replacing)
        case .applySchema(let source):
            switch source {
            case .inline(let text):
                try backend.applySchema(text, source: "the schema given")
            case .file(let path):
                let text: String
                do { text = String(decoding: try FileInput.readAll(path), as: UTF8.self) } catch {
                    throw StatementError("cannot read schema '\(path)': \(error.message)")
                }
                try backend.applySchema(text, source: path)
            }
            for warning in backend.openWarnings { stderr.write("warning: \(warning)\n") }
        case .dump(let models):
            try inTransaction(isWrite: false) {
                try backend.dump(models: models, write: { [stdout] text in stdout.write(text) }, warn: { [stderr, stdout] text in
                    stdout.flush()
                    stderr.write("warning: \(text)\n")
                    stderr.flush()
                })
            }
        case .open(let options):
            try openStore(options)
        case .dbinfo:
            stdout.write(Self.describe(try backend.statistics()))
        case .vacuum:
            // The explicit transaction holds the writer the vacuum's commits need.
            if backend.isInTransaction {
                throw StatementError("cannot vacuum inside a transaction ('commit' or 'rollback' first)")
            }
            let r = try backend.vacuum()
            stdout.write("file size: \(r.bytesBefore) -> \(r.bytesAfter) bytes (\(ByteCount.text(r.bytesBefore)) -> \(ByteCount.text(r.bytesAfter)))\n")
            if r.heldBySnapshots { stdout.write("an open snapshot holds pages at the end of the file: vacuum again once it ends\n") }
        case .output(let file):
            if let file, file != "-" { try redirect(to: file, origin: origin) } else { endRedirection(origin: origin) }
        case .once(let file):
            try redirect(to: file, origin: origin)
            onceCountdown = 2
        case .nullValue(let text):
            settings.nullText = text
        case .timeout(let timeout):
            try backend.setBusyTimeout(timeout)
            busyTimeout = timeout
        case .parameter(.set(let index, let value)):
            guard index <= arguments.count else {
                throw StatementError("cannot set $\(index) before $\(arguments.count): parameters are bound in order from $0")
            }
            if index == arguments.count { arguments.append(value) } else { arguments[index] = value }
        case .parameter(.list):
            for (index, value) in arguments.enumerated() {
                stdout.write("$\(index) = \(JSONText.string(.string(value)))\n")
            }
        case .parameter(.clear):
            arguments = []
        case .rekey(let newKey):
            try backend.changeEncryptionKey(to: try readNewKey(newKey))
        case .verify:
            let findings = try backend.verify()
            for warning in findings.warnings { stderr.write("warning: \(warning)\n") }
            let problems = findings.problems
            guard !problems.isEmpty else { stdout.write("ok\n"); return }
            for problem in problems { stdout.write(problem + "\n") }
            throw StatementError(problems.count == 1 ? "the store has a problem" : "the store has \(problems.count) problems")
        }
    }

    /// The key `.rekey` names. A typed key is asked for twice, as `passwd` does: a typing
    /// mistake would otherwise lock the store for good.
    private func readNewKey(_ newKey: DotCommand.NewKey) throws -> [UInt8]? {
        do throws(UsageError) {
            switch newKey {
            case .plain:
                return nil
            case .file(let path):
                return try EncryptionKey(file: path).bytes
            case .typed:
                guard terminal.stdinIsTerminal else {
                    throw UsageError(".rekey: give the new key's file (.rekey KEYFILE), or --none for a plain store")
                }
                stdout.flush()
                guard let first = SecretPrompt.ask("New encryption key (128 hexadecimal digits): ") else {
                    throw UsageError(".rekey: no key typed; the key is unchanged")
                }
                let key = try EncryptionKey(contents: first, source: "the key typed").bytes
                guard let second = SecretPrompt.ask("The new key again: ") else {
                    throw UsageError(".rekey: no key typed; the key is unchanged")
                }
                guard (try? EncryptionKey(contents: second, source: "the key typed").bytes) == key else {
                    throw UsageError(".rekey: the two keys typed differ; the key is unchanged")
                }
                return key
            }
        } catch {
            throw StatementError(error.message)
        }
    }

    /// `.dbinfo`'s lines, labels right-aligned as `.show` aligns them.
    static func describe(_ s: StoreStatistics) -> String {
        func size(_ pages: Int) -> String { ByteCount.text(UInt64(pages) * UInt64(s.pageSize)) }
        let lines = [
            ("file size", "\(s.fileBytes) bytes (\(ByteCount.text(s.fileBytes)))"),
            ("page size", "\(s.pageSize) bytes"),
            ("pages", "\(s.pageCount)"),
            ("used pages", "\(s.usedPages) (\(size(s.usedPages)))"),
            ("free pages", "\(s.freePages) (\(size(s.freePages)), reused by later writes)"),
            ("pending pages", "\(s.pendingPages) (\(size(s.pendingPages)), reused once no snapshot reads them)"),
            ("version", "\(s.version)"),
        ]
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { String(repeating: " ", count: width - $0.0.count) + $0.0 + ": " + $0.1 + "\n" }.joined()
    }

    /// `.open`: the new store replaces the open one only once it has opened; until then the
    /// open one stays in use, so a mistyped name loses nothing.
    private func openStore(_ options: CommandLineOptions) throws {
        if backend.isInTransaction {
            throw StatementError("cannot open another store inside a transaction ('commit' or 'rollback' first)")
        }
        let opened: ShellBackend
        let openedTimeout: Duration?
        do {
            (opened, openedTimeout) = try Shell.openStore(options, terminal: terminal, openBackend: openBackend)
        } catch let error as UsageError {
            throw StatementError(error.message)
        }
        backend = opened
        readOnly = options.readOnly
        busyTimeout = openedTimeout
        for warning in opened.openWarnings { stderr.write("warning: \(warning)\n") }
        stderr.flush()
    }

    // MARK: Output files

    /// Fails the statement whose output standard output lost (a full disk, or a closed pipe
    /// when SIGPIPE is ignored), as `cat` does, instead of exiting 0 with the output missing;
    /// once, since every later write is dropped.
    private func standardOutputLoss() -> StatementError? {
        stdout.flush()
        guard !outputFailureReported, let output = console as? FileOutput, output.failed else { return nil }
        outputFailureReported = true
        return StatementError("cannot write standard output: \(SystemError(errno: output.failure).message)")
    }

    /// Sends output to `file` (created, or emptied) until `.output` or `.once` ends it, in
    /// place of the file output went to; a file that cannot be opened leaves output there.
    private func redirect(to file: String, origin: InputOrigin) throws {
        // What the file output goes to holds is written before `file` is emptied: it may be
        // the same file.
        redirection?.output.flush()
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StatementError("cannot write '\(file)': \(SystemError(errno: errno).message)") }
        endRedirection(origin: origin)
        let output = FileOutput(fd: fd)
        redirection = (file, output, fd)
        stdout = output
    }

    /// Closes the output file, if any, and sends output to the console again; a write to it
    /// that failed (a full disk) is reported here, once.
    private func endRedirection(origin: InputOrigin) {
        guard let (file, output, fd) = redirection else { return }
        output.flush()
        let failed = output.failed
        let error = output.failure
        Glibc.close(fd)
        redirection = nil
        stdout = console
        onceCountdown = 0
        if failed {
            report(StatementError("cannot write '\(file)': \(SystemError(errno: error).message)"), statement: nil, origin: origin)
        }
    }

    // MARK: End

    /// Rolls back a transaction left open (as sqlite3 and psql do), saying so.
    func close() {
        endRedirection(origin: .command)
        stdout.flush()
        if backend.isInTransaction {
            do {
                try backend.rollback()
                stderr.write("warning: the open transaction was rolled back\n")
            } catch {
                stderr.write("error: rolling back the open transaction: \(error)\n")
                hadError = true
            }
            stderr.flush()
        }
    }
}
