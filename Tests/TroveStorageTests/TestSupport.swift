import Foundation
@testable import TroveStorage

/// A fresh directory under the system temp dir, removed by `cleanup()`.
struct TempDir {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "trove-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Big-endian fixed-width key, so numeric order equals byte order.
func key(_ i: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(i).bigEndian) { Array($0) } }

extension ReadTransaction {
    /// Every key/value of a tree, in order.
    func dump(_ name: String) throws -> [([UInt8], [UInt8])] {
        guard let t = try tree(named: name) else { return [] }
        let c = try cursor(t)
        var out: [([UInt8], [UInt8])] = []
        var ok = try c.first()
        while ok {
            out.append((try c.key(), try c.value()))
            ok = try c.next()
        }
        return out
    }
}

/// Makes the lock file at `lockPath` say it was last written in another boot.
func markLockFileFromAnotherBoot(_ lockPath: String) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: lockPath))
    try handle.seek(toOffset: 48)
    handle.write(Data(repeating: 0x5A, count: 16))
    try handle.close()
}
