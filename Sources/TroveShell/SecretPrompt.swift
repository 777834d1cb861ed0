#if canImport(Glibc)
import Glibc
#endif

/// Asks for a secret on the controlling terminal with echo turned off (termios), as `ssh` and
/// `psql` ask for passwords: the answer never appears on the screen, in the history file or
/// in standard input's stream.
enum SecretPrompt {
    /// Writes `prompt` to the terminal and reads one line; nil when there is no terminal or
    /// input ended before a line.
    static func ask(_ prompt: String) -> [UInt8]? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        let canSilence = tcgetattr(fd, &saved) == 0
        if canSilence {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer {
            if canSilence { _ = tcsetattr(fd, TCSAFLUSH, &saved) }
            // The user's Enter was not echoed: end the prompt's line.
            _ = write(fd, "\n", 1)
        }
        _ = prompt.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return line.isEmpty ? nil : line }
            if byte == 0x0A { return line }
            line.append(byte)
        }
    }
}
