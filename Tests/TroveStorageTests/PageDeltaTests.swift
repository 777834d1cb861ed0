import Testing
@testable import TroveStorage
import TestRandom

/// `PageDelta`: a page as the byte runs in which it differs from its source.
@Suite struct PageDeltaTests {
    private func randomPage(_ rng: inout SplitMix64, _ length: Int = 4096) -> [UInt8] {
        (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// Encodes `page` against `source`, applies the result to a copy of `source`, returns it.
    private func roundTrip(_ page: [UInt8], _ source: [UInt8], limit: Int = 2048) -> (delta: [UInt8], result: [UInt8])? {
        var out = [UInt8](repeating: 0, count: limit)
        let n = page.withUnsafeBytes { p in source.withUnsafeBytes { s in out.withUnsafeMutableBytes { o in
            PageDelta.encode(p.baseAddress!, from: s.baseAddress!, length: p.count, sourceOffset: 12_288, into: o.baseAddress!, limit: limit)
        } } }
        guard let n else { return nil }
        let delta = Array(out[0..<n])
        var result = source
        let applied = delta.withUnsafeBytes { d in result.withUnsafeMutableBytes { PageDelta.apply(d, to: $0) } }
        #expect(applied)
        return (delta, result)
    }

    @Test(arguments: 1...20)
    func anEditedPageIsRebuiltExactlyFromItsSource(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed))
        let source = randomPage(&rng)
        var page = source
        // Like a leaf insert: header fields, a shifted slot array, a new entry, the trailer.
        page[8] &+= 1
        let at = 32 + Int(rng.next() % 200) * 2
        page.replaceSubrange(at..<at + 300, with: source[at + 2..<at + 302])
        for i in 3000..<3000 + Int(rng.next() % 60) { page[i] = UInt8(truncatingIfNeeded: rng.next()) }
        for i in 4064..<4072 { page[i] ^= 0xFF }
        let r = try #require(roundTrip(page, source))
        #expect(r.result == page)
        #expect(r.delta.count < 600)
        #expect(PageDelta.source(of: r.delta.withUnsafeBytes { $0 })?.offset == 12_288)
    }

    /// Words that differ far apart within one 256-byte block are runs of their own, whichever
    /// 32-byte chunk they fall in.
    @Test(arguments: [(264, 480), (256, 504), (288, 320), (312, 456)])
    func distantEditsInOneBlockAreSeparateRuns(first: Int, second: Int) throws {
        var rng = SplitMix64(seed: 11)
        let source = randomPage(&rng)
        var page = source
        page[first] ^= 0x01
        page[second + 7] ^= 0x80
        let r = try #require(roundTrip(page, source))
        #expect(r.result == page)
        let runs = r.delta.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) }
        #expect(runs == 2)
        #expect(r.delta.count == PageDelta.headerSize + 2 * 8 + 2 * 8)
    }

    @Test func anUnchangedPageIsAnEmptyDelta() throws {
        var rng = SplitMix64(seed: 7)
        let source = randomPage(&rng)
        let r = try #require(roundTrip(source, source))
        #expect(r.delta.count == PageDelta.headerSize)
        #expect(r.result == source)
    }

    @Test func aRewrittenPageIsNotEncoded() {
        var rng = SplitMix64(seed: 8)
        #expect(roundTrip(randomPage(&rng), randomPage(&rng)) == nil)
    }

    @Test func aMalformedDeltaChangesNothing() throws {
        var rng = SplitMix64(seed: 9)
        let source = randomPage(&rng)
        var page = source
        for i in 100..<140 { page[i] ^= 0x55 }
        for i in 900..<910 { page[i] ^= 0x55 }
        let good = try #require(roundTrip(page, source)).delta
        func set(_ d: inout [UInt8], _ offset: Int, _ v: UInt32) { withUnsafeBytes(of: v) { d.replaceSubrange(offset..<offset + 4, with: $0) } }
        var truncated = good; truncated.removeLast()
        var outside = good; set(&outside, PageDelta.headerSize, 4090)
        var overlapping = good; set(&overlapping, PageDelta.headerSize + 8, 120)
        var tooManyRuns = good; set(&tooManyRuns, 12, 1000)
        var wrongLength = good; set(&wrongLength, 8, 8192)
        for bad in [truncated, outside, overlapping, tooManyRuns, wrongLength, Array(good[0..<10])] {
            var target = source
            let applied = bad.withUnsafeBytes { d in target.withUnsafeMutableBytes { PageDelta.apply(d, to: $0) } }
            #expect(!applied)
            #expect(target == source)
        }
    }
}
