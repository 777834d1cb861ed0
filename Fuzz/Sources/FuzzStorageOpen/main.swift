import CFuzzerDriver
import Foundation
import TroveStorage

#if canImport(Glibc)
import Glibc
#endif

/// A file held in memory: the fuzzer's bytes are the whole store.
final class BytesIO: StorageIO, @unchecked Sendable {
    let name = "fuzz-input"
    let base: UnsafeMutableRawPointer
    let length: Int
    static let capacity = 64 << 20

    init(_ bytes: UnsafeRawBufferPointer) {
        base = mmap(nil, BytesIO.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)!
        length = min(bytes.count, BytesIO.capacity)
        if length > 0 { base.copyMemory(from: bytes.baseAddress!, byteCount: length) }
    }
    deinit { munmap(base, BytesIO.capacity) }

    func size() throws -> UInt64 { UInt64(length) }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        let o = Int(offset)
        let n = max(0, min(buffer.count, length - o))
        if n > 0 { buffer.baseAddress!.copyMemory(from: base + o, byteCount: n) }
        if n < buffer.count { (buffer.baseAddress! + n).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count - n) }
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        throw StorageError.readOnly
    }
    func sync() throws {}
    func map(length: UInt64) throws -> StorageMapping {
        // Pages past the input read as zeros, as an mmap past the end of a real file would fault:
        // the engine must never look there, and the fuzzer catches it if it does (ASan).
        StorageMapping(base: UnsafeRawPointer(base), length: UInt64(self.length), release: nil)
    }
}

/// libFuzzer's entry point: any bytes, opened as a store read-only, must open or throw a
/// `StorageError`; every tree must read or throw; `verify()` must report, never crash or hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStorageOpen(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let io = BytesIO(UnsafeRawBufferPointer(start: data, count: size))
    var options = StorageOptions()
    options.readOnly = true
    do {
        let storage = try Storage(io: io, options: options)
        try storage.read { tx in
            for name in try tx.treeNames() {
                guard let tree = try tx.tree(named: name) else { continue }
                let c = try tx.cursor(tree)
                var ok = try c.first()
                var steps = 0
                while ok && steps < 100_000 {
                    _ = try c.withEntry { k, v in k.count &+ v.count }
                    ok = try c.next()
                    steps += 1
                }
                _ = try tx.get(tree, [UInt8](repeating: 0x41, count: 8))
            }
        }
        _ = try storage.verify()
    } catch {
        _ = "\(error)"
    }
    return 0
}

var arguments = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argumentValues, fuzzStorageOpen))
