#if canImport(Glibc)
import Glibc
#endif

/// The file `export` writes: for a regular file or a new path, a temporary file beside it
/// that is renamed over it once the export is whole, so that an export that fails part way
/// (an error, Ctrl-C, a full disk) leaves the old file as it was. Anything else (a FIFO,
/// a terminal) cannot be renamed over and is written in place; the file standard output or
/// error is (`/dev/stdout`, however reached) is written through that descriptor.
final class FileReplacement {
    /// Where the rows go.
    let fd: Int32
    /// The temporary file, renamed to `target` by `commit`; nil when writing in place.
    private var temporary: String?
    /// The path the file ends at: a symbolic link's target, since renaming over the link
    /// would replace the link.
    private let target: String

    /// Opens `path` for writing; a failure is the `errno` of the call that failed.
    init(path: String) throws(SystemError) {
        var status = stat()
        let exists = stat(path, &status) == 0
        if !exists, errno != ENOENT { throw SystemError(errno: errno) }
        var inPlace = false
        let stream = exists ? Self.standardStream(status) : nil
        if let stream, stream != 0 {
            // Decided by the file, not by how the path is spelled: a link or `..` to
            // `/dev/stdout` of `> out.txt` leads to the file standard output writes. The rows
            // go through that descriptor, after what the caller wrote there, where renaming
            // over the file or truncating it would lose the caller's output.
            target = path
            fd = fcntl(stream, F_DUPFD_CLOEXEC, 3)
            if fd < 0 { throw SystemError(errno: errno) }
            return
        }
        if exists, status.st_mode & S_IFMT != S_IFREG || stream != nil || Self.leadsThroughDescriptor(path) {
            // `/proc/self/fd/3` of `3>> log` names what the descriptor writes, however spelled.
            target = path
            inPlace = true
        } else if exists {
            guard let real = realpath(path, nil) else { throw SystemError(errno: errno) }
            target = String(cString: real)
            free(real)
        } else {
            target = try Self.resolvingLinks(path)
        }
        // A file its owner made read-only is not replaced behind their back.
        if exists, access(target, W_OK) != 0 { throw SystemError(errno: errno) }
        if !inPlace {
            if let (fd, name) = try Self.createTemporary(beside: target, mode: exists ? status.st_mode & 0o7777 : nil) {
                self.fd = fd
                temporary = name
                return
            }
            // A directory that refuses a new file may still let its file be written.
            guard exists else { throw SystemError(errno: EACCES) }
        }
        fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw SystemError(errno: errno) }
    }

    /// Which of standard output, error and input (in that order) has the file of `status` open.
    private static func standardStream(_ status: stat) -> Int32? {
        [Int32(1), 2, 0].first { fd in
            var open = stat()
            return fstat(fd, &open) == 0 && open.st_dev == status.st_dev && open.st_ino == status.st_ino
        }
    }

    /// Whether `path`, or a link it leads through, lies in /dev or /proc (`/dev/fd/3`,
    /// `/proc/self/fd/3`): a descriptor's name, not a file's.
    private static func leadsThroughDescriptor(_ path: String) -> Bool {
        var path = path
        for _ in 0..<40 {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
            guard let real = realpath(directory, nil) else { return false }
            let canonical = String(cString: real)
            free(real)
            if canonical == "/dev" || canonical.hasPrefix("/dev/") || canonical.hasPrefix("/proc/") { return true }
            guard let link = try? linkText(path) else { return false }
            path = link.hasPrefix("/") ? link : canonical + "/" + link
        }
        return false
    }

    /// Puts the written file in place of the old one and closes it.
    func commit() throws(SystemError) {
        defer { close(fd) }
        guard let temporary else { return }
        self.temporary = nil
        if fsync(fd) != 0 || rename(temporary, target) != 0 {
            var code = errno
            // A directory that refuses the rename (another user's sticky directory) may
            // still let its file be written, as an export wrote it before it was whole.
            if code == EACCES || code == EPERM, Self.copy(from: fd, to: target, failure: &code) { code = 0 }
            unlink(temporary)
            if code != 0 { throw SystemError(errno: code) }
        }
    }

    /// Writes what `fd` holds over `target` in place; false with `failure` set if it cannot.
    private static func copy(from fd: Int32, to target: String, failure: inout Int32) -> Bool {
        let out = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard out >= 0 else { failure = errno; return false }
        defer { close(out) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n == 0 { return true }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return false
            }
            var done = 0
            while done < n {
                let w = buffer[done..<n].withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
                if w < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return false
                }
                done += w
            }
            offset += off_t(n)
        }
    }

    /// Closes the file and removes what was written of it, leaving the old file as it was;
    /// a file written in place keeps what was written.
    func abandon() {
        close(fd)
        if let temporary { unlink(temporary) }
        temporary = nil
    }

    /// `path` with every symbolic link along its last component followed, to a file that
    /// does not exist yet.
    private static func resolvingLinks(_ path: String) throws(SystemError) -> String {
        var path = path
        for _ in 0..<40 {
            guard let link = try linkText(path) else { return path }
            if link.hasPrefix("/") {
                path = link
            } else if let slash = path.lastIndex(of: "/") {
                path = String(path[...slash]) + link
            } else {
                path = link
            }
        }
        throw SystemError(errno: ELOOP)
    }

    /// What the symbolic link at `path` points to, or nil when `path` is no link (or does not exist).
    private static func linkText(_ path: String) throws(SystemError) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        if count < 0 { throw SystemError(errno: errno) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A new file in `target`'s directory, created with `mode` (the old file's, less the
    /// umask, then set exactly) or 0666 less the umask, never wider; nil when the directory
    /// refuses it or the name would be too long.
    private static func createTemporary(beside target: String, mode: mode_t?) throws(SystemError) -> (Int32, String)? {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        var name = Substring(slash.map { String(target[target.index(after: $0)...]) } ?? target)
        for attempt in 0..<100 {
            let suffix = ".\(getpid())-\(attempt).tmp"
            // `.NAME.PID-N.tmp` within NAME_MAX: a long NAME gives way to the suffix.
            while name.utf8.count + suffix.utf8.count + 1 > Int(NAME_MAX), !name.isEmpty { name.removeLast() }
            let candidate = "\(directory).\(name)\(suffix)"
            let fd = open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode ?? 0o666)
            if fd >= 0 {
                if let mode { fchmod(fd, mode) }
                return (fd, candidate)
            }
            switch errno {
            case EEXIST: continue
            case EACCES, EPERM, ENAMETOOLONG: return nil
            default: throw SystemError(errno: errno)
            }
        }
        throw SystemError(errno: EEXIST)
    }
}
