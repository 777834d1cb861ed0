import Testing
@testable import TroveStorage

@Suite struct PageArenaTests {
    static let pageSize = 4096
    static let perChunk = PageArena.chunkSize / pageSize

    @Test func buffersAreDistinctAlignedPagesThatKeepTheirBytesAcrossChunks() {
        var arena = PageArena(pageSize: Self.pageSize, first: nil)
        let count = 2 * Self.perChunk + 7   // three chunks
        var buffers: [UnsafeMutableRawPointer] = []
        for i in 0..<count {
            let p = arena.allocate()
            p.initializeMemory(as: UInt32.self, repeating: UInt32(i), count: Self.pageSize / 4)
            buffers.append(p)
        }
        #expect(Set(buffers.map { UInt(bitPattern: $0) }).count == count)
        #expect(buffers.allSatisfy { UInt(bitPattern: $0) % UInt(Self.pageSize) == 0 })
        // No buffer overlaps another: each still holds what was written into it.
        for (i, p) in buffers.enumerated() {
            let words = UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt32.self), count: Self.pageSize / 4)
            #expect(words.allSatisfy { $0 == UInt32(i) }, "buffer \(i)")
        }
        let first = arena.reset()
        #expect(first.map { UInt(bitPattern: $0) } == UInt(bitPattern: buffers[0]))
        if let first { PageArena.unmapChunk(first) }
    }

    @Test func releasedBuffersAreHandedOutAgainBeforeNewOnes() {
        var arena = PageArena(pageSize: Self.pageSize, first: nil)
        let a = arena.allocate(), b = arena.allocate()
        arena.release(a)
        #expect(arena.allocate() == a)
        let c = arena.allocate()
        #expect(c != a && c != b)
        if let first = arena.reset() { PageArena.unmapChunk(first) }
    }

    @Test func anArenaStartsOnTheChunkItIsGivenAndAnEmptyOneReturnsNone() {
        var empty = PageArena(pageSize: Self.pageSize, first: nil)
        #expect(empty.reset() == nil)
        let chunk = PageArena.mapChunk()
        #expect(UInt(bitPattern: chunk) % UInt(PageArena.chunkSize) == 0)
        var arena = PageArena(pageSize: Self.pageSize, first: chunk)
        #expect(arena.allocate() == chunk)
        #expect(arena.allocate() == chunk + Self.pageSize)
        #expect(arena.reset() == chunk)
        PageArena.unmapChunk(chunk)
    }

    @Test func theStoreKeepsOneChunkBetweenWriteTransactions() throws {
        let s = try Storage.inMemory()
        #expect(s.writer.spareChunk == nil)
        // More dirty pages than one chunk holds, so the transaction maps chunks of its own.
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<(3 * Self.perChunk * 16) { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 200)) }
        }
        let kept = try #require(s.writer.spareChunk)
        let tx = try s.beginWrite()
        #expect(s.writer.spareChunk == nil)   // the open transaction holds it
        try tx.put(try tx.tree(named: "t")!, key(1 << 40), [1])
        tx.abort()
        #expect(s.writer.spareChunk == kept)
        let dump = try s.read { try $0.dump("t") }
        #expect(dump.count == 3 * Self.perChunk * 16)
        #expect(dump.enumerated().allSatisfy { $0.element.0 == key($0.offset) && $0.element.1 == [UInt8](repeating: UInt8($0.offset & 0xff), count: 200) })
        #expect(try s.verify().isValid)
    }
}
