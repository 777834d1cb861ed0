#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TroveShell

/// `export` to a file replaces it only once every row is written: an export that fails part
/// way leaves the old file as it was.
extension ShellRunTests {
    func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    func siblings(of path: String) throws -> [String] {
        let directory = String(path[..<path.lastIndex(of: "/")!])
        let name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        guard let dir = opendir(directory) else { throw SystemError(errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if entryName.contains(name) { names.append(entryName) }
        }
        return names
    }

    @Test func anExportThatFailsPartWayLeavesTheOldFile() throws {
        for suffix in [".csv", ".json", ".jsonl"] {
            let path = temporaryFile("the old contents\n", suffix: suffix)
            defer { unlink(path) }
            let r = run(["-c", "export Person where name != 'halfway' \(path)"])
            #expect(r.status == 1)
            #expect(r.err == "error: the store failed half way\n")
            #expect(try contents(path) == "the old contents\n")
            #expect(try siblings(of: path) == [String(path[path.index(after: path.lastIndex(of: "/")!)...])])
        }
        let new = temporaryFile("", suffix: ".csv")
        unlink(new)
        #expect(run(["-c", "export Person where name != 'halfway' \(new)"]).status == 1)
        #expect(access(new, F_OK) != 0)
    }

    @Test func anExportReplacesAFileKeepingItsModeAndFollowsASymbolicLink() throws {
        let path = temporaryFile("the old contents\n", suffix: ".csv")
        defer { unlink(path) }
        chmod(path, 0o640)
        let link = path + ".link.csv"
        symlink(path, link)
        defer { unlink(link) }
        var before = stat(), after = stat()
        stat(path, &before)
        #expect(run(["-c", "export Person \(link)"]).status == 0)
        stat(path, &after)
        #expect(after.st_ino != before.st_ino, "replaced by a rename, not written in place")
        #expect(try contents(path) == "id,name,age\n1,Ann,31\n2,Bob,\n")
        #expect(mode(path) == 0o640)
        var status = stat()
        #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
    }

    @Test(.disabled(if: geteuid() == 0, "root may write a read-only file"))
    func anExportDoesNotReplaceAReadOnlyFile() throws {
        let path = temporaryFile("kept\n", suffix: ".csv")
        defer { unlink(path) }
        chmod(path, 0o444)
        let r = run(["-c", "export Person \(path)"])
        #expect(r.status == 1)
        #expect(r.err == "error: cannot write '\(path)': Permission denied\n")
        #expect(try contents(path) == "kept\n")
    }

    /// A name as long as a directory takes still gets its temporary file beside it.
    @Test func anExportReplacesAFileOfTheLongestName() throws {
        let scratch = temporaryFile("", suffix: ".csv")
        unlink(scratch)
        let path = String(scratch[...scratch.lastIndex(of: "/")!]) + String(repeating: "x", count: Int(NAME_MAX) - 4) + ".csv"
        #expect(creat(path, 0o644) >= 0)
        defer { unlink(path) }
        let r = run(["-c", "export Person \(path)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(try contents(path) == "id,name,age\n1,Ann,31\n2,Bob,\n")
    }

    /// `/dev/stdout` names standard output whatever it is (a pipe, the file of `> out.txt`),
    /// so it is written as it is, never replaced.
    @Test func anExportToADeviceWritesInPlace() throws {
        #expect(run(["-c", "export Person /dev/null"]).status == 0)
        let path = temporaryFile("", suffix: ".txt")
        defer { unlink(path) }
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        var before = stat(), after = stat()
        stat(path, &before)
        for (name, fd) in [(path, open(path, O_WRONLY)), ("a pipe", fds[1])] {
            let r = run(["-c", "export Person /proc/self/fd/\(fd)"])
            close(fd)
            #expect(r.status == 0, "\(name): \(r.err)")
        }
        stat(path, &after)
        #expect(after.st_ino == before.st_ino)
        #expect(try contents(path) == "{\"id\": 1, \"name\": \"Ann\", \"age\": 31}\n{\"id\": 2, \"name\": \"Bob\", \"age\": null}\n")
        var piped = [UInt8](repeating: 0, count: 200)
        #expect(read(fds[0], &piped, piped.count) > 0)
    }
}
