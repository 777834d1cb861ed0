import BenchSupport
/// The keys and values every engine writes and reads: generated once from a fixed seed, so all
/// engines see the same bytes in the same order. Stored flat to keep generation and lookup out
/// of the timings.
final class Dataset {
    static let keySize = 24
    static let valueSize = 150

    let count: Int
    private let keys: UnsafeMutableRawBufferPointer
    private let values: UnsafeMutableRawBufferPointer

    init(count: Int, seed: UInt64) {
        self.count = count
        keys = .allocate(byteCount: count * Dataset.keySize, alignment: 8)
        values = .allocate(byteCount: count * Dataset.valueSize, alignment: 8)
        var rng = SplitMix64(seed: seed)
        for i in 0..<count {
            rng.fill(UnsafeMutableRawBufferPointer(rebasing: keys[(i * Dataset.keySize)..<((i + 1) * Dataset.keySize)]))
            rng.fill(UnsafeMutableRawBufferPointer(rebasing: values[(i * Dataset.valueSize)..<((i + 1) * Dataset.valueSize)]))
        }
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always)
    func key(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: keys[(i * Dataset.keySize)..<((i + 1) * Dataset.keySize)])
    }

    @inline(__always)
    func value(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: values[(i * Dataset.valueSize)..<((i + 1) * Dataset.valueSize)])
    }

    /// Folds every byte of a value into a checksum, so a read really touches the value.
    @inline(__always)
    static func fold(_ value: UnsafeRawBufferPointer, into sum: inout UInt64) {
        var h: UInt64 = UInt64(value.count)
        var o = 0
        while o + 8 <= value.count {
            h = (h &* 31) &+ value.loadUnaligned(fromByteOffset: o, as: UInt64.self)
            o += 8
        }
        while o < value.count {
            h = (h &* 31) &+ UInt64(value[o])
            o += 1
        }
        sum &+= h
    }
}

extension SplitMix64 {
    /// Fills `buffer` with random bytes.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var o = 0
        while o < buffer.count {
            var word = next()
            let n = min(8, buffer.count - o)
            withUnsafeBytes(of: &word) { (buffer.baseAddress! + o).copyMemory(from: $0.baseAddress!, byteCount: n) }
            o += n
        }
    }
}
