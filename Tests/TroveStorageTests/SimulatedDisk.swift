import Foundation
@testable import TroveStorage
import TestRandom

/// A disk that remembers which writes were synced, so a test can crash it: unsynced writes are
/// then dropped, reordered or torn (sector by sector) at random, as a power cut would.
final class SimulatedDisk: StorageIO, @unchecked Sendable {
    static let capacity = 256 << 20
    static let sector = 512
    let name = "simulated"
    private let lock = NSLock()
    /// What reads see: every completed write.
    private let image: UnsafeMutableRawPointer
    private var length = 0
    /// What survives a crash for sure.
    private var durable: [UInt8]
    /// Writes since the last sync, in order; a write of no bytes is a truncation to `offset`.
    private var pending: [(offset: Int, bytes: [UInt8])] = []
    /// After this many more writes or syncs, every call fails: the process is dead. Disks
    /// that lose power together (a store and its commit log) share one budget.
    var power: Power? = nil
    var failAfter: Int? {
        get { power?.remaining }
        set { power = newValue.map(Power.init(failAfter:)) }
    }
    private(set) var dead = false
    /// How many times `sync()` was called.
    private(set) var syncs = 0
    /// Whether `writeDirect` is taken (else it returns false, as a file system without direct
    /// I/O does). A direct write is durable when it returns; one the power cut short leaves
    /// every other sector written.
    var acceptsDirectWrites = false
    /// How many direct writes were taken.
    private(set) var directWrites = 0

    final class Power: @unchecked Sendable {
        var remaining: Int
        init(failAfter: Int) { remaining = failAfter }
    }

    init(durable: [UInt8] = []) {
        image = mmap(nil, SimulatedDisk.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)!
        self.durable = durable
        durable.withUnsafeBytes { if $0.count > 0 { image.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        length = durable.count
    }

    deinit { munmap(image, SimulatedDisk.capacity) }

    private func tick() throws {
        if dead { throw StorageError.io(operation: "simulated crash", path: name, errno: EIO) }
        if let power {
            if power.remaining <= 0 { dead = true; throw StorageError.io(operation: "simulated crash", path: name, errno: EIO) }
            power.remaining -= 1
        }
    }

    func size() throws -> UInt64 { lock.lock(); defer { lock.unlock() }; return UInt64(length) }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        lock.lock(); defer { lock.unlock() }
        let o = Int(offset)
        let n = max(0, min(buffer.count, length - o))
        if n > 0 { buffer.baseAddress!.copyMemory(from: image + o, byteCount: n) }
        if n < buffer.count { (buffer.baseAddress! + n).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count - n) }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        lock.lock(); defer { lock.unlock() }
        try tick()
        let o = Int(offset)
        guard o + bytes.count <= SimulatedDisk.capacity else { throw StorageError.io(operation: "write", path: name, errno: ENOSPC) }
        (image + o).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        length = max(length, o + bytes.count)
        pending.append((o, Array(bytes)))
    }

    func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Bool {
        guard acceptsDirectWrites else { return false }
        lock.lock(); defer { lock.unlock() }
        precondition(Int(bitPattern: bytes.baseAddress) % directWriteAlignment == 0 && offset % UInt64(directWriteAlignment) == 0
                     && bytes.count % directWriteAlignment == 0, "a direct write of whole aligned blocks")
        let o = Int(offset)
        if !dead, let power, power.remaining <= 0 {
            var s = 0
            while s < bytes.count {
                let end = min(s + SimulatedDisk.sector, bytes.count)
                if (s / SimulatedDisk.sector) % 2 == 0 {
                    (image + o + s).copyMemory(from: bytes.baseAddress! + s, byteCount: end - s)
                    apply(&durable, o + s, Array(bytes[s..<end])[...])
                }
                s = end
            }
            length = max(length, o + bytes.count)
        }
        try tick()
        (image + o).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        length = max(length, o + bytes.count)
        apply(&durable, o, Array(bytes)[...])
        directWrites += 1
        return true
    }

    /// Cuts the file to `size` bytes. Like a write, it survives a crash only once synced.
    func truncate(to size: UInt64) throws {
        lock.lock(); defer { lock.unlock() }
        try tick()
        let n = Int(size)
        if n < length { (image + n).initializeMemory(as: UInt8.self, repeating: 0, count: length - n) }
        length = n
        pending.append((n, []))
    }

    func sync() throws {
        lock.lock(); defer { lock.unlock() }
        try tick()
        syncs += 1
        for w in pending { apply(&durable, w.offset, w.bytes[...]) }
        pending.removeAll()
    }

    func map(length: UInt64) throws -> StorageMapping {
        StorageMapping(base: UnsafeRawPointer(image), length: UInt64(SimulatedDisk.capacity), release: nil)
    }

    /// What a power cut that loses every unsynced write leaves.
    func durableImage() -> [UInt8] {
        lock.lock(); defer { lock.unlock() }
        return durable
    }

    /// The bytes a reboot would find: the durable image plus a random subset of the unsynced
    /// writes, applied in random order, some of them only partly (torn at sector boundaries).
    func crashImage(using rng: inout SplitMix64) -> [UInt8] {
        lock.lock(); defer { lock.unlock() }
        var out = durable
        for w in pending.shuffled(using: &rng) {
            switch rng.next() % 4 {
            case 0: continue                       // dropped
            case 1:                                 // torn: some sectors only
                var s = 0
                while s < w.bytes.count {
                    let end = min(s + SimulatedDisk.sector, w.bytes.count)
                    if rng.next() % 2 == 0 { apply(&out, w.offset + s, w.bytes[s..<end]) }
                    s = end
                }
            default: apply(&out, w.offset, w.bytes[...])
            }
        }
        return out
    }

    private func apply(_ out: inout [UInt8], _ offset: Int, _ bytes: ArraySlice<UInt8>) {
        if bytes.isEmpty {
            if out.count > offset { out.removeSubrange(offset...) }
            return
        }
        if out.count < offset + bytes.count { out.append(contentsOf: [UInt8](repeating: 0, count: offset + bytes.count - out.count)) }
        out.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }
}
