import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the `trove` binary on a pseudo-terminal, as a person at a terminal would, and
/// waits on what it prints (never on time) with a generous deadline.
final class PseudoTerminal {
    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var transcript: String
        var description: String { "timed out waiting for \(waitingFor.debugDescription); output so far: \(transcript.debugDescription)" }
    }

    let pid: pid_t
    private let master: Int32
    private var output: [UInt8] = []
    /// Output before this index was matched by an earlier `expect`.
    private var matched = 0
    private var atEnd = false
    private let deadline: Double

    init(arguments: [String], environment: [String: String], deadline seconds: Double = 30) throws {
        deadline = seconds
        // Everything the child needs is built before fork: after it, only exec is safe.
        let argv = ([TroveBinary.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        var fd: Int32 = -1
        let child = forkpty(&fd, nil, nil, &size)
        if child == 0 {
            // Test runner threads block signals, and exec keeps the mask: unblock them,
            // or Ctrl-C would never reach the shell.
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
            execve(argv[0]!, argv, envp)
            _exit(127)
        }
        guard child > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        pid = child
        master = fd
    }

    deinit {
        if !atEnd { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        close(master)
    }

    /// Types `text` (use `\r` for Enter, `\u{03}` for Ctrl-C, `\u{04}` for Ctrl-D, `\t` for Tab).
    func send(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    /// Waits until `text` appears after what earlier calls matched; returns the output up to
    /// and including it.
    @discardableResult
    func expect(_ text: String) throws -> String {
        let needle = Array(text.utf8)
        let stop = Date().addingTimeInterval(deadline)
        while true {
            if let range = find(needle) {
                let seen = String(decoding: output[matched..<range.upperBound], as: UTF8.self)
                matched = range.upperBound
                return seen
            }
            guard !atEnd, readMore(until: stop) else {
                throw Timeout(waitingFor: text, transcript: String(decoding: output, as: UTF8.self))
            }
        }
    }

    /// Waits for `prompt`, then until the line editor has switched the terminal to raw
    /// mode: libedit restores cooked mode between lines, and keys typed in that window
    /// would be echoed twice or, for Ctrl-D, taken by the kernel instead of the editor.
    func expectPrompt(_ prompt: String = "trove> ") throws {
        try expect(prompt)
        let stop = Date().addingTimeInterval(deadline)
        var settings = termios()
        // On Linux the master side reports the terminal's current settings.
        while tcgetattr(master, &settings) == 0, settings.c_lflag & tcflag_t(ICANON) != 0 {
            guard !atEnd, readMore(until: stop, pollMilliseconds: 5) else {
                throw Timeout(waitingFor: "raw mode after \(prompt.debugDescription)", transcript: transcript)
            }
        }
    }

    /// Reads to end of output and returns the exit status (or throws at the deadline).
    func waitForExit() throws -> Int32 {
        let stop = Date().addingTimeInterval(deadline)
        while !atEnd {
            guard readMore(until: stop) else {
                throw Timeout(waitingFor: "exit", transcript: String(decoding: output, as: UTF8.self))
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    var transcript: String { String(decoding: output, as: UTF8.self) }

    private func find(_ needle: [UInt8]) -> Range<Int>? {
        guard output.count - matched >= needle.count else { return nil }
        for start in matched...(output.count - needle.count) where output[start] == needle[0] {
            if output[start..<(start + needle.count)].elementsEqual(needle) { return start..<(start + needle.count) }
        }
        return nil
    }

    /// Reads what is available; false when the deadline passed first.
    private func readMore(until stop: Date, pollMilliseconds: Int32 = 1000) -> Bool {
        let remaining = stop.timeIntervalSinceNow
        guard remaining > 0 else { return false }
        var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, min(Int32(remaining * 1000), pollMilliseconds))
        if ready < 0 { return errno == EINTR }
        if ready == 0 { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        if n > 0 {
            output.append(contentsOf: buffer[0..<n])
        } else if n == 0 || errno != EINTR {
            // EIO: the child closed the terminal (it exited).
            atEnd = true
        }
        return true
    }
}
