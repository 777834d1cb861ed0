#if canImport(Glibc)
import Glibc
#endif
import CLibEdit

/// Entry point of the `trove` command-line shell.
public enum Shell {
    /// Opens the store the command line names; the shell's only way to reach a store.
    /// Throwing `UsageError` (an unreadable database file, a schema file that is not a
    /// schema) exits with status 2; any other error with status 1.
    public typealias BackendOpener = (BackendConfiguration) throws -> ShellBackend

    /// Runs the shell with the given arguments (without the program name) and returns the
    /// exit status: 0 success, 1 a statement failed, 2 bad usage.
    public static func main(arguments: [String], openBackend: @escaping BackendOpener = { _ in UnavailableBackend() }) -> Int32 {
        StandardDescriptors.occupyClosed()
        let stdout = FileOutput(fd: STDOUT_FILENO)
        let stderr = FileOutput(fd: STDERR_FILENO, capacity: 0)
        defer { stdout.flush() }
        return run(arguments: arguments, stdout: stdout, stderr: stderr, terminal: .current(),
                   standardInput: LineReader(), environment: InteractiveShell.environment(), openBackend: openBackend)
    }

    /// `main` with its surroundings passed in, for tests.
    static func run(arguments: [String], stdout: OutputSink, stderr: OutputSink, terminal: Terminal,
                    standardInput: LineSource, environment: [String: String] = [:], openBackend: @escaping BackendOpener) -> Int32 {
        let options: CommandLineOptions
        do {
            options = try CommandLineParser.parse(arguments)
        } catch {
            stderr.write("trove: \(error.message)\nTry 'trove --help' for more information.\n")
            return 2
        }
        if options.showHelp {
            stdout.write(HelpText.usage)
            return 0
        }
        if options.showVersion {
            stdout.write(HelpText.version)
            return 0
        }
        let interactive = options.scripts.isEmpty && terminal.stdinIsTerminal
        let initFile = InitFile.path(option: options.initFile, skip: options.skipInit, interactive: interactive,
                                     environment: environment)
        // Unreadable inputs are usage errors, found before anything is opened.
        var inputs: [String] = []
        for case .file(let path) in options.scripts where path != "-" { inputs.append(path) }
        if let initFile { inputs.append(initFile) }
        for path in inputs {
            do { try FileInput.checkReadable(path) } catch {
                stderr.write("trove: cannot read '\(path)': \(error.message)\n")
                return 2
            }
        }
        // Before the store opens, while this is the only thread (`setlocale` is not thread-safe).
        UserLocale.adoptAtStart(options, terminal: terminal)
        let backend: ShellBackend
        let busyTimeout: Duration?
        do {
            (backend, busyTimeout) = try openStore(options, terminal: terminal, openBackend: openBackend)
        } catch let error as UsageError {
            stderr.write("trove: \(error.message)\n")
            return 2
        } catch {
            stderr.write("error: \(error)\n")
            return 1
        }

        for warning in backend.openWarnings { stderr.write("warning: \(warning)\n") }

        let session = ShellSession(backend: backend, stdout: stdout, stderr: stderr, terminal: terminal, options: options,
                                   busyTimeout: busyTimeout, standardInput: standardInput, openBackend: openBackend)
        if let initFile {
            if interactive {
                stderr.write("-- Loading resources from \(initFile)\n")
                stderr.flush()
            }
            do {
                // At the prompt an error in the init file is shown and shrugged off, as any other.
                let ok = session.run(try LineReader(path: initFile), origin: .file(initFile), stopOnError: !interactive)
                if !ok, !interactive || session.exitStatus != nil {
                    session.close()
                    stdout.flush()
                    return session.exitStatus ?? 1
                }
            } catch {
                stderr.write("trove: cannot read '\(initFile)': \(error.message)\n")
                return 2
            }
        }
        if !options.scripts.isEmpty {
            for script in options.scripts {
                let ok: Bool
                switch script {
                case .command(let text):
                    ok = session.run(TextLines(text), origin: .command, stopOnError: true)
                case .file(let path):
                    let source: LineSource
                    do {
                        source = path == "-" ? standardInput : try LineReader(path: path)
                    } catch {
                        stderr.write("trove: cannot read '\(path)': \(error.message)\n")
                        return 2
                    }
                    ok = session.run(source, origin: path == "-" ? .standardInput : .file(path), stopOnError: true)
                }
                if !ok { break }
            }
        } else if terminal.stdinIsTerminal {
            InteractiveShell(session: session).run()
            session.close()
            stdout.flush()
            // Errors at the prompt were seen and shrugged off; only `.exit N` sets a status.
            return session.exitStatus ?? 0
        } else {
            session.run(standardInput, origin: .standardInput, stopOnError: options.bail)
        }
        session.close()
        stdout.flush()
        if let status = session.exitStatus, !session.hadError || status != 0 { return status }
        return session.hadError ? 1 : 0
    }

    /// Opens the store `options` name (the command line's, or `.open`'s): reads the schema and
    /// key files, and at a terminal asks for the key of an encrypted store opened without one.
    /// Returns the store and the `--timeout` it was given. Every failure to open is a
    /// `UsageError`, except a refused migration.
    static func openStore(_ options: CommandLineOptions, terminal: Terminal,
                          openBackend: BackendOpener) throws -> (backend: ShellBackend, busyTimeout: Duration?) {
        var schema: (path: String, text: String)?
        if let path = options.schemaFile {
            do {
                schema = (path, String(decoding: try FileInput.readAll(path == "-" ? nil : path), as: UTF8.self))
            } catch {
                throw UsageError("cannot read schema '\(path)': \(error.message)")
            }
        }
        var configuration = BackendConfiguration(databasePath: options.isInMemory ? nil : options.database,
                                                 schema: schema, readOnly: options.readOnly,
                                                 resetOnMigration: options.resetOnMigration,
                                                 encryptionKey: try options.keyFile.map { path throws(UsageError) in
                                                     try EncryptionKey(file: path).bytes
                                                 })
        if let text = options.busyTimeout {
            do throws(UsageError) { configuration.busyTimeout = try BusyTimeout.parse(text) } catch {
                throw UsageError("option '--timeout': \(error.message)")
            }
        }
        do {
            return (try openBackend(configuration), configuration.busyTimeout)
        } catch let needed as EncryptionKeyNeeded {
            guard terminal.stdinIsTerminal,
                  let typed = SecretPrompt.ask("Encryption key of '\(needed.path)' (128 hexadecimal digits): ") else {
                throw UsageError(needed.message)
            }
            configuration.encryptionKey = try EncryptionKey(contents: typed, source: "the key typed").bytes
            return (try openBackend(configuration), configuration.busyTimeout)
        }
    }
}
