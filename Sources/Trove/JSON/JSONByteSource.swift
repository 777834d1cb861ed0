#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``JSONStreamReader`` gets its bytes.
package protocol JSONByteSource {
    /// Reads up to `buffer.count` bytes into `buffer` and returns how many it read.
    /// Returns 0 only at the end of the input.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Reads a file descriptor with `read(2)`. The descriptor stays open: its owner closes it.
package struct FileDescriptorByteSource: JSONByteSource {
    package let fileDescriptor: Int32

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            #if canImport(Glibc)
            let n = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
            #else
            let n = Darwin.read(fileDescriptor, buffer.baseAddress, buffer.count)
            #endif
            if n >= 0 { return n }
            // A signal (terminal resize, SIGCHLD) interrupting a read is not a failure.
            if errno == EINTR { continue }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}

/// Serves bytes already in memory, at most `maxReadSize` at a time: lets tests split values
/// at every possible chunk boundary.
package struct ByteArraySource: JSONByteSource {
    package let bytes: [UInt8]
    package let maxReadSize: Int
    private var offset = 0

    package init(_ bytes: [UInt8], maxReadSize: Int = .max) {
        precondition(maxReadSize > 0, "maxReadSize must be positive")
        self.bytes = bytes
        self.maxReadSize = maxReadSize
    }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, maxReadSize, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}
