/// What the catalog records for each named tree (and the meta records for the catalog itself).
/// Its layout is stated in `StorageProtocol.swift`.
struct TreeInfo: Equatable {
    var root: UInt64 = 0          // 0: empty tree
    var rootChecksum: UInt64 = 0
    var entries: UInt64 = 0
    var depth: UInt32 = 0
    var flags: UInt32 = 0
    var pages: UInt64 = 0          // branch + leaf + overflow pages

    static let encodedSize = 48

    func encode(into p: UnsafeMutableRawPointer) {
        p.storeBytes(of: root, toByteOffset: 0, as: UInt64.self)
        p.storeBytes(of: rootChecksum, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: entries, toByteOffset: 16, as: UInt64.self)
        p.storeBytes(of: depth, toByteOffset: 24, as: UInt32.self)
        p.storeBytes(of: flags, toByteOffset: 28, as: UInt32.self)
        p.storeBytes(of: pages, toByteOffset: 32, as: UInt64.self)
        p.storeBytes(of: 0, toByteOffset: 40, as: UInt64.self)
    }

    init() {}

    init(decoding p: UnsafeRawPointer) {
        root = p.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        rootChecksum = p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        entries = p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        depth = p.loadUnaligned(fromByteOffset: 24, as: UInt32.self)
        flags = p.loadUnaligned(fromByteOffset: 28, as: UInt32.self)
        pages = p.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
    }

    var bytes: [UInt8] {
        var b = [UInt8](repeating: 0, count: TreeInfo.encodedSize)
        b.withUnsafeMutableBytes { encode(into: $0.baseAddress!) }
        return b
    }
}
