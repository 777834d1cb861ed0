#if canImport(Glibc)
import Glibc
#endif

/// The file `export` writes: for a regular file or a new path, a temporary file beside it
/// that is renamed over it once the export is whole, so that an export that fails part way
/// (an error, Ctrl-C, a full disk) leaves the old file as it was. Anything else (a FIFO,
/// `/dev/stdout`, a terminal) cannot be renamed over and is written in place.
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
        if exists, status.st_mode & S_IFMT != S_IFREG || path.hasPrefix("/dev/") || path.hasPrefix("/proc/") {
            // `/dev/stdout` and its kind name a descriptor, not a path: a file behind it
            // (`> out.txt`) stays the one the descriptor writes.
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

    /// Puts the written file in place of the old one and closes it.
    func commit() throws(SystemError) {
        defer { close(fd) }
        guard let temporary else { return }
        self.temporary = nil
        if fsync(fd) != 0 || rename(temporary, target) != 0 {
            let code = errno
            unlink(temporary)
            throw SystemError(errno: code)
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
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, buffer.count - 1)
            if count < 0 { throw SystemError(errno: errno) }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

    /// A new file in `target`'s directory with `mode` (the old file's), or nil when the
    /// directory refuses it.
    private static func createTemporary(beside target: String, mode: mode_t?) throws(SystemError) -> (Int32, String)? {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        for attempt in 0..<100 {
            let candidate = "\(directory).\(name).\(getpid())-\(attempt).tmp"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                if let mode { fchmod(fd, mode) }
                return (fd, candidate)
            }
            switch errno {
            case EEXIST: continue
            case EACCES, EPERM: return nil
            default: throw SystemError(errno: errno)
            }
        }
        throw SystemError(errno: EEXIST)
    }
}
