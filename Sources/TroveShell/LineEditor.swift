#if canImport(Glibc)
import Glibc
#endif
import CLibEdit

/// Interactive line input on libedit: emacs bindings, the user's `~/.editrc`, persistent
/// history, and tab completion through a closure.
final class LineEditor {
    /// What one call to `readLine` got.
    enum Input: Equatable {
        case line(String)
        /// Ctrl-C: the line is dropped.
        case interrupted
        /// Ctrl-D on an empty line, or the terminal went away.
        case endOfInput
    }

    /// Given the line and the cursor (a UTF-8 offset), what may complete the word there.
    typealias CompletionProvider = (_ line: String, _ cursor: Int) -> Completion

    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyFile: String?
    private let complete: CompletionProvider
    private var prompt: UnsafeMutablePointer<CChar>
    private let input: UnsafeMutablePointer<FILE>
    private let output: UnsafeMutablePointer<FILE>
    private let errors: UnsafeMutablePointer<FILE>

    /// The number of history entries kept, in memory and in the file.
    static let historySize: Int32 = 1000

    /// `historyFile` nil keeps history for this session only.
    init?(historyFile: String?, complete: @escaping CompletionProvider) {
        // libedit reads and draws multibyte characters in the locale's encoding.
        _ = UserLocale.isUTF8
        // Private FILE streams: Swift 6 forbids touching the global `stdin`/`stdout`.
        guard let input = fdopen(dup(STDIN_FILENO), "r"), let output = fdopen(dup(STDOUT_FILENO), "w"),
              let errors = fdopen(dup(STDERR_FILENO), "w"),
              let editLine = el_init("trove", input, output, errors), let history = history_init() else { return nil }
        self.input = input
        self.output = output
        self.errors = errors
        self.editLine = editLine
        self.history = history
        self.historyFile = historyFile
        self.complete = complete
        prompt = strdup("")

        var event = HistEvent()
        trove_history_setsize(history, &event, Self.historySize)
        trove_history_setunique(history, &event, 1)
        if let historyFile { trove_history_load(history, &event, historyFile) }

        trove_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        trove_el_set_editor(editLine, "emacs")
        // libedit restores the terminal on signals and redraws after SIGWINCH/SIGCONT.
        trove_el_set_signal(editLine, 1)
        trove_el_set_history(editLine, history)
        trove_el_set_prompt(editLine) { el in
            guard let el, let data = trove_el_get_clientdata(el) else { return nil }
            return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().prompt
        }
        trove_el_add_fn(editLine, "trove-complete", "complete a command, model or property") { el, _ in
            guard let el, let data = trove_el_get_clientdata(el) else { return UInt8(CC_ERROR) }
            return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().completeWord()
        }
        trove_el_set_addfn_tab(editLine)
        trove_el_set_getcfn(editLine) { el, character in
            guard let el, let character, let data = trove_el_get_clientdata(el) else { return -1 }
            return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().readCharacter(into: character)
        }
        trove_el_source(editLine)
    }

    deinit {
        el_end(editLine)
        history_end(history)
        fclose(input)
        fclose(output)
        fclose(errors)
        free(prompt)
    }

    /// Shows `prompt` and reads one line (without its newline).
    func readLine(prompt text: String) -> Input {
        free(prompt)
        prompt = strdup(text)
        Interrupt.clear()
        Interrupt.drainWakeUps()
        var count: Int32 = 0
        guard let line = el_gets(editLine, &count), count > 0 else {
            if Interrupt.isRequested {
                Interrupt.clear()
                return .interrupted
            }
            return .endOfInput
        }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return .line(text)
    }

    /// libedit's character reader: waits on the terminal and on Ctrl-C's self-pipe at once,
    /// so Ctrl-C always ends the read (returning -1 makes `el_gets` give up the line).
    /// Decodes UTF-8, as libedit's own reader does in a UTF-8 locale.
    private func readCharacter(into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
        let fd = fileno(input)
        var bytes: [UInt8] = []
        var needed = 1
        while bytes.count < needed {
            if Interrupt.isRequested { return -1 }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: Interrupt.wakeUpReadEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, Interrupt.wakeUpReadEnd >= 0 ? 2 : 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if fds[1].revents != 0 { Interrupt.drainWakeUps() }
            if Interrupt.isRequested { return -1 }
            guard fds[0].revents != 0 else { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n == 0 { return 0 }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return -1
            }
            // A broken sequence is dropped rather than allowed to swallow the next character.
            if !bytes.isEmpty, byte & 0xC0 != 0x80 { bytes = [] }
            if bytes.isEmpty {
                needed = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            }
            bytes.append(byte)
        }
        let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
        character.pointee = wchar_t(bitPattern: scalar.value)
        return 1
    }

    /// Adds an entry (a whole statement, even of several lines) and, when `saving`, saves the
    /// file, so a crash or a second shell loses nothing.
    func addHistory(_ entry: String, saving: Bool) {
        var event = HistEvent()
        trove_history_enter(history, &event, entry)
        guard saving, let historyFile else { return }
        // History may hold secrets typed into statements: keep the file private.
        let fd = open(historyFile, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        trove_history_save(history, &event, historyFile)
    }

    /// Writes text on the terminal between prompts (completion lists).
    private func show(_ text: String) {
        fputs(text, output)
        fflush(output)
    }

    /// Bound to Tab: completes the word before the cursor, or lists the choices.
    private func completeWord() -> UInt8 {
        guard let info = el_line(editLine)?.pointee else { return UInt8(CC_ERROR) }
        let length = info.lastchar - info.buffer
        let cursor = info.cursor - info.buffer
        let bytes = UnsafeRawBufferPointer(start: info.buffer, count: length)
        let line = String(decoding: bytes, as: UTF8.self)
        let completion = complete(line, cursor)
        let typed = String(decoding: bytes[completion.start..<cursor], as: UTF8.self)
        guard !completion.candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if completion.candidates.count == 1 {
            let choice = completion.candidates[0]
            let ending = choice.last.map { "/.(".contains($0) } ?? true
            replace(typed, with: choice + (ending ? "" : " "))
            return UInt8(CC_REFRESH)
        }
        let common = Completion.commonPrefix(completion.candidates)
        if common.count > typed.count {
            replace(typed, with: common)
            return UInt8(CC_REFRESH)
        }
        show("\n" + Completion.columns(completion.candidates, width: Int(trove_terminal_columns(STDOUT_FILENO))))
        return UInt8(CC_REDISPLAY)
    }

    private func replace(_ typed: String, with text: String) {
        // libedit counts wide characters, i.e. Unicode scalars.
        el_deletestr(editLine, Int32(typed.unicodeScalars.count))
        el_insertstr(editLine, text)
    }
}
