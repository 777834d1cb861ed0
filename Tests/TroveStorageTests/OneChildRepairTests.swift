import Testing
@testable import TroveStorage
import TestRandom

/// Branches with one child as older writers left them (the format allows them), side by
/// side, one under another, or beside a sibling too full to merge with: a delete through
/// them, or a commit that packs leaves under them, leaves none.
@Suite struct OneChildRepairTests {
    /// The automatic vacuum off: a vacuum that walks a tree repairs every such shape it meets
    /// (``VacuumTests``), and the commits that make them free enough pages to start one.
    static let withoutVacuum = VacuumTests.manual()

    /// Where a repair test's store lives: in memory, or in a file that is closed after the
    /// repairs, opened again and verified as the disk holds it.
    enum Backing: Sendable, CaseIterable { case memory, file }

    /// Runs `body` on a new store of `backing` (the automatic vacuum off); `body` returns the
    /// keys tree "t" holds at its end. A file's store is then released (closed: the last
    /// opener checkpoints its log), and the file opened again must verify, hold those keys,
    /// and (when `repaired`) have no empty leaf nor branch with one child.
    static func on(_ backing: Backing, repaired: Bool = true, _ body: (Storage) throws -> Set<[UInt8]>) throws {
        guard backing == .file else {
            _ = try body(try Storage.inMemory(options: withoutVacuum))
            return
        }
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("repair.trove")
        let present = try body(try Storage(path: path, options: withoutVacuum))
        let reopened = try Storage(path: path, options: withoutVacuum)
        let summary = try TreeShapeTests.summary(reopened)
        #expect(summary.entries == present.count)
        if repaired { #expect(summary.emptyLeaves == 0 && summary.oneChildBranches == 0, "\(summary)") }
        #expect(try reopened.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(try Self.leafDepths(reopened) == [summary.depth])
    }

    /// A tree of 30,000 keys of 8 bytes, put in one transaction: three levels, full pages.
    static func threeLevels(in store: Storage? = nil) throws -> (Storage, Set<[UInt8]>) {
        let s = try store ?? Storage.inMemory(options: Self.withoutVacuum)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 { try tx.put(t, key(i), TreeFillTests.value(i)) }
            #expect(t.depth == 3)
        }
        return (s, Set((0..<30_000).map { key($0) }))
    }

    /// A tree of 2,500 keys of 200 bytes, appended: three levels, about nine branches under
    /// the root, room for runs of one-child branches beside each other.
    static func wideThreeLevels(in store: Storage? = nil) throws -> (Storage, Set<[UInt8]>) {
        let s = try store ?? Storage.inMemory(options: Self.withoutVacuum)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<2_500 { try tx.append(t, TreeShapeTests.longKey(i), TreeFillTests.value(i)) }
            #expect(t.depth == 3)
        }
        return (s, Set((0..<2_500).map { TreeShapeTests.longKey($0) }))
    }

    /// Keys of 480 bytes ordered as `i`: a page holds about eight, so a few thousand make
    /// five levels.
    static func wideKey(_ i: Int) -> [UInt8] { key(i) + [UInt8](repeating: 0x2D, count: 472) }

    /// A tree of wide keys appended until it has five levels: root, three levels of
    /// branches, leaves.
    static func fiveLevels(in store: Storage? = nil) throws -> (Storage, Set<[UInt8]>) {
        let s = try store ?? Storage.inMemory(options: Self.withoutVacuum)
        var present = Set<[UInt8]>()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            var i = 0
            while t.depth < 5 || i % 1_000 != 0 {
                try tx.append(t, wideKey(i), TreeFillTests.value(i))
                present.insert(wideKey(i))
                i += 1
            }
        }
        return (s, present)
    }

    /// Two adjacent branches with one child each (an older file's): a delete through the
    /// first makes one branch of two children out of them. Pairing it with its left sibling
    /// instead leaves the second as it was, and copies the left sibling for nothing.
    @Test func aDeleteThroughTheFirstOfTwoAdjacentOneChildBranchesJoinsThem() throws {
        var (s, present) = try Self.threeLevels()
        var before: (children: Int, left: UInt64) = (0, 0)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for k in try tx.oneChildBranch(t, path: [1]) { present.remove(k) }
            for k in try tx.oneChildBranch(t, path: [2]) { present.remove(k) }
        }
        #expect(try TreeShapeTests.summary(s).oneChildBranches == 2)
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            before = (try tx.childCount(t, path: []), try tx.pageNumber(t, path: [0]))
        }
        try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [1, 0], present: &present)
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.childCount(t, path: []) == before.children - 1)
            #expect(try tx.childCount(t, path: [1]) == 2)
            #expect(try tx.pageNumber(t, path: [0]) == before.left, "the left sibling was copied")
        }
    }

    /// The same pair with nearly empty leaves: the two branches make one of two children,
    /// whose leaves then merge into one, which leaves that branch with one child again; it is
    /// repaired in its own parent in the same delete.
    @Test(arguments: Backing.allCases)
    func twoOneChildBranchesWhoseLeavesMergeLeaveNoOneChildBranch(backing: Backing) throws {
      try Self.on(backing) { store in
        var (s, present) = try Self.threeLevels(in: store)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for k in try tx.oneChildBranch(t, path: [1]) { present.remove(k) }
            for k in try tx.oneChildBranch(t, path: [2]) { present.remove(k) }
            for k in try tx.emptyLeaf(t, path: [1], keeping: 2) { present.remove(k) }
            for k in try tx.emptyLeaf(t, path: [2], keeping: 2) { present.remove(k) }
        }
        let before = try TreeShapeTests.summary(s)
        #expect(before.oneChildBranches == 2)
        #expect(before.entries == present.count)
        try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [1, 0], present: &present)
        return present
      }
    }

    /// Runs of three and four adjacent branches with one child each (an older file's), and
    /// every branch under the root so (nil), with their leaves as they were or nearly empty:
    /// one delete through any of them (the first, one inside, the last) leaves no branch with
    /// one child. Pairing only the one the delete went through with a neighbour leaves the
    /// others of the run as they were.
    @Test(arguments: [(3, false), (3, true), (4, false), (4, true), (nil, false), (nil, true)], Backing.allCases)
    func oneDeleteThroughARunOfAdjacentOneChildBranchesRepairsTheRun(shape: (length: Int?, sparseLeaves: Bool), backing: Backing) throws {
        let (length, sparseLeaves) = shape
        let branches = try Self.wideThreeLevels().0.read { tx in try tx.childCount(try #require(try tx.tree(named: "t")), path: []) }
        let run = length.map { 1...$0 } ?? 0...(branches - 1)
        try #require(run.upperBound < branches)
        for through in [run.lowerBound, run.lowerBound + 1, run.upperBound] {
          try Self.on(backing) { store in
            var (s, present) = try Self.wideThreeLevels(in: store)
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for b in run {
                    for k in try tx.oneChildBranch(t, path: [b]) { present.remove(k) }
                    if sparseLeaves { for k in try tx.emptyLeaf(t, path: [b], keeping: 2) { present.remove(k) } }
                }
            }
            let before = try TreeShapeTests.summary(s)
            #expect(before.oneChildBranches == run.count)
            #expect(before.entries == present.count)
            try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [through, 0], present: &present)
            let after = try TreeShapeTests.summary(s)
            #expect(try Self.leafDepths(s) == [after.depth], "through \(through)")
            return present
          }
        }
    }

    /// Runs of three adjacent chains (a branch with one child over a branch with one child),
    /// the run's chains aligned or the middle one a single branch: one delete through any
    /// chain of the run leaves no branch with one child on either level.
    @Test(arguments: [true, false], Backing.allCases)
    func oneDeleteThroughARunOfAdjacentChainsRepairsEveryLevel(aligned: Bool, backing: Backing) throws {
        for through in [1, 2, 3] {
          try Self.on(backing) { store in
            var (s, present) = try Self.fiveLevels(in: store)
            var made = 0
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                #expect(try tx.childCount(t, path: [0]) >= 5)
                for b in 1...3 {
                    let paths = aligned || b != 2 ? [[0, b], [0, b, 0]] : [[0, b]]
                    for path in paths {
                        for k in try tx.oneChildBranch(t, path: path) { present.remove(k) }
                        made += 1
                    }
                }
            }
            let before = try TreeShapeTests.summary(s)
            #expect(before.oneChildBranches == made)
            try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [0, through, 0, 0], present: &present)
            #expect(try Self.leafDepths(s) == [before.depth], "through \(through)")
            return present
          }
        }
    }

    /// A branch with one child whose sibling is too full to take its entry: the sibling
    /// shares its children, and both end with two or more; no branch is merged away.
    @Test func aOneChildBranchBesideAFullSiblingTakesSomeOfItsChildren() throws {
        let s = try Storage.inMemory(options: Self.withoutVacuum)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 { try tx.put(t, key(2 * i), TreeFillTests.value(i)) }
            #expect(t.depth == 3)
        }
        var present = Set((0..<30_000).map { key(2 * $0) })
        // Odd keys into the first branch's range split its leaves, one child more each, until
        // it has no room for another child: a merge with it cannot fit.
        let room = s.pageSize - PageLayout.headerSize - PageLayout.trailerSize
        let entry = NodeView.branchFixed + 8 + 2
        var odd = 1
        while try s.read({ tx in room - (try tx.usedBytes(try #require(try tx.tree(named: "t")), path: [0])) }) >= entry {
            try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(odd), TreeFillTests.value(odd)) }
            present.insert(key(odd))
            odd += 2
            try #require(odd < 20_000)
        }
        var before: (root: Int, left: Int) = (0, 0)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for k in try tx.oneChildBranch(t, path: [1]) { present.remove(k) }
            before = (try tx.childCount(t, path: []), try tx.childCount(t, path: [0]))
            #expect(try tx.usedBytes(t, path: [0]) + (try tx.usedBytes(t, path: [1])) + 8 > room)
        }
        #expect(try TreeShapeTests.summary(s).oneChildBranches == 1)
        try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [1, 0], present: &present)
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.childCount(t, path: []) == before.root)
            let left = try tx.childCount(t, path: [0]), right = try tx.childCount(t, path: [1])
            #expect(left < before.left)
            #expect(left >= 2 && right >= 2)
            #expect(left + right == before.left + 1)
        }
    }

    /// A chain of three branches with one child, one under another, as deep as a five-level
    /// tree allows (an older file's): one delete through the chain repairs all three, with
    /// the leaf at its end as it was or nearly empty (so that it merges too).
    @Test(arguments: [nil, 1], Backing.allCases)
    func aDeleteThroughAChainOfThreeOneChildBranchesRepairsAll(keeping: Int?, backing: Backing) throws {
      try Self.on(backing) { store in
        var (s, present) = try Self.fiveLevels(in: store)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for path in [[1], [1, 0], [1, 0, 0]] {
                for k in try tx.oneChildBranch(t, path: path) { present.remove(k) }
            }
            if let keeping { for k in try tx.emptyLeaf(t, path: [1], keeping: keeping) { present.remove(k) } }
        }
        let before = try TreeShapeTests.summary(s)
        #expect(before.oneChildBranches == 3)
        #expect(before.entries == present.count)
        try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [1, 0, 0, 0], present: &present)
        return present
      }
    }

    /// Chains beside chains: every second branch under the root's first child is left with
    /// one child, and so is the branch below each; deletes through each, one per commit,
    /// leave no branch with one child.
    @Test(arguments: Backing.allCases)
    func deletesThroughNeighbouringChainsRepairThemAll(backing: Backing) throws {
      try Self.on(backing) { store in
        var (s, present) = try Self.fiveLevels(in: store)
        var chains = 0
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            let branches = try tx.childCount(t, path: [0])
            #expect(branches >= 4)
            for b in stride(from: 0, to: branches, by: 2) {
                for path in [[0, b], [0, b, 0]] {
                    for k in try tx.oneChildBranch(t, path: path) { present.remove(k) }
                }
                chains += 1
            }
        }
        var left = try TreeShapeTests.summary(s).oneChildBranches
        #expect(left == 2 * chains)
        for _ in 0..<chains {
            let (path, deleted) = try s.read { tx in
                let t = try #require(try tx.tree(named: "t"))
                let path = try #require(try Self.pathToOneChildBranch(tx, t))
                return (path, try #require(try tx.leafKeys(t, path: path).first))
            }
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                #expect(try tx.delete(t, deleted))
            }
            present.remove(deleted)
            let after = try TreeShapeTests.summary(s)
            #expect(after.oneChildBranches == left - 2, "the delete under \(path)")
            #expect(after.emptyLeaves == 0)
            left = after.oneChildBranches
        }
        #expect(left == 0)
        #expect(try s.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
        return present
      }
    }

    /// A tree of wide keys appended until it has four levels: root, two levels of branches,
    /// leaves.
    static func fourLevels(in store: Storage? = nil) throws -> (Storage, Set<[UInt8]>) {
        let s = try store ?? Storage.inMemory(options: Self.withoutVacuum)
        var present = Set<[UInt8]>()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            var i = 0
            while t.depth < 4 || i % 500 != 0 {
                try tx.append(t, wideKey(i), TreeFillTests.value(i))
                present.insert(wideKey(i))
                i += 1
            }
        }
        return (s, present)
    }

    /// The root's first child a chain (a branch with one child over a branch with one child),
    /// the second a branch of two children, the first of which has a leaf with one entry:
    /// deleting it leaves that child with one child, which shares its sibling's, and the
    /// second branch under a quarter full, so that it merges with the first. The chain's
    /// lower branch, taken into the merged branch, is repaired in the same delete.
    @Test(arguments: Backing.allCases)
    func aChainMergedIntoAnUnderfullSiblingIsRepaired(backing: Backing) throws {
      try Self.on(backing) { store in
        var (s, present) = try Self.fourLevels(in: store)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth == 4)
            for k in try tx.oneChildBranch(t, path: [0]) { present.remove(k) }
            for k in try tx.oneChildBranch(t, path: [0, 0]) { present.remove(k) }
            for k in try tx.trimBranch(t, path: [1], keeping: 2) { present.remove(k) }
            for k in try tx.emptyLeaf(t, path: [1, 0, 0], keeping: 1) { present.remove(k) }
        }
        let before = try TreeShapeTests.summary(s)
        #expect(before.oneChildBranches == 2)
        try TreeShapeTests.deleteFirstKeyOfLeaf(s, path: [1, 0, 0], present: &present)
        return present
      }
    }

    /// The depths of the leaves of tree `t`: the verifier does not check that they are one.
    static func leafDepths(_ s: Storage) throws -> Set<Int> {
        try s.read { tx in try tx.leafDepths(try #require(try tx.tree(named: "t"))) }
    }

    /// The first key under the node reached by following `path` from the root of `t`, if any
    /// (leaves may be empty).
    static func firstKey(_ tx: ReadTransaction, _ t: Tree, under path: [Int]) throws -> [UInt8]? {
        func search(_ pgno: UInt64) throws -> [UInt8]? {
            let n = try tx.node(pgno)
            if n.isLeaf { return n.count > 0 ? Array(try n.key(0)) : nil }
            for i in 0..<n.count { if let found = try search(try n.child(i)) { return found } }
            return nil
        }
        return try search(try tx.pageNumber(t, path: path))
    }

    /// The path from the root to the first branch with one child, if any.
    static func pathToOneChildBranch(_ tx: ReadTransaction, _ t: Tree) throws -> [Int]? {
        func search(_ pgno: UInt64, _ path: [Int]) throws -> [Int]? {
            let n = try tx.node(pgno)
            if n.isLeaf { return nil }
            if n.count == 1 { return path }
            for i in 0..<n.count { if let found = try search(try n.child(i), path + [i]) { return found } }
            return nil
        }
        return try search(t.info.root, [])
    }

    /// Packing at commit removes the empty leaves of an older file and packs the others,
    /// which can leave a branch with one child under a branch with one child; the upper one
    /// merges with a sibling, and the lower one, carried beside siblings, is repaired too.
    @Test(arguments: Backing.allCases)
    func packingThatLeavesOneChildBranchesOnTwoLevelsRepairsBoth(backing: Backing) throws {
      try Self.on(backing) { s in
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<20_000 { try tx.append(t, TreeShapeTests.longKey(i), TreeFillTests.value(i)) }
            #expect(t.depth == 4)
        }
        var present = Set((0..<20_000).map { TreeShapeTests.longKey($0) })
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            // Under the second branch of the second level: the first branch's leaves keep
            // one entry in three, which packing puts into one leaf; every other leaf is emptied.
            let branches = try tx.childCount(t, path: [1])
            for j in 0..<branches {
                for i in 0..<(try tx.childCount(t, path: [1, j])) {
                    let keeping = j == 0 && i < 3 ? 1 : 0
                    for k in try tx.emptyLeaf(t, path: [1, j, i], keeping: keeping) { present.remove(k) }
                }
            }
            #expect(tx.dirty.count >= WriteTransaction.packingThreshold)
        }
        let after = try TreeShapeTests.summary(s)
        #expect(after.entries == present.count)
        #expect(after.emptyLeaves == 0)
        #expect(after.oneChildBranches == 0)
        try TreeShapeTests.expectShapeKept(s, "after packing")
        #expect(try s.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
        return present
      }
    }

    /// Makes older files' shapes at random places of tree "t" (one-child branches alone, in
    /// chains and side by side, and leaves emptied or nearly so), in eight small commits,
    /// which do not pack (packing would repair most of them at once), each `levels` below the
    /// root; removes from `present` the keys that goes.
    static func scatterOldShapes(_ s: Storage, _ rng: inout SplitMix64, levels: ClosedRange<Int> = 1...4,
                                 present: inout Set<[UInt8]>) throws {
        for _ in 0..<8 {
          try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for _ in 0..<5 {
                // A random path one to four levels down: to a leaf, or a branch (the tree may
                // have lost a level).
                var path: [Int] = []
                let length = levels.lowerBound + rng.int(levels.count)
                while path.count < length, !(try tx.node(try tx.pageNumber(t, path: path)).isLeaf) {
                    path.append(rng.int(try tx.childCount(t, path: path)))
                }
                if try tx.node(try tx.pageNumber(t, path: path)).isLeaf {
                    for k in try tx.emptyLeaf(t, path: path, keeping: rng.int(3)) { present.remove(k) }
                } else if try tx.childCount(t, path: path) >= 2 {
                    for k in try tx.oneChildBranch(t, path: path) { present.remove(k) }
                }
            }
            #expect(tx.dirty.count < WriteTransaction.packingThreshold)
          }
        }
    }

    /// Older-file shapes scattered through a five-level tree (one-child branches alone, in
    /// chains and side by side, and leaves emptied or nearly so), made in small commits, then rounds of random deletes and
    /// inserts, some large enough to pack: after every commit the store verifies, holds what a
    /// set holds, keeps every leaf at one depth, and has no more such nodes than before. Then
    /// a delete through each one-child branch left removes it.
    @Test(arguments: [2, 11, 28, 47], Backing.allCases)
    func randomDeletesThroughScatteredOldShapesOnlyRepairThem(seed: Int, backing: Backing) throws {
      try Self.on(backing, repaired: false) { store in
        var (s, present) = try Self.fiveLevels(in: store)
        var rng = SplitMix64(seed: UInt64(seed))
        let all = present.sorted { $0.lexicographicallyPrecedes($1) }
        try Self.scatterOldShapes(s, &rng, present: &present)
        var sparse = try TreeShapeTests.summary(s)
        #expect(sparse.oneChildBranches > 0)
        #expect(sparse.entries == present.count)
        for round in 0..<30 {
            let large = rng.chance(20)
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for _ in 0..<(large ? 400 : 1 + rng.int(20)) {
                    let k = rng.pick(all)
                    if rng.chance(75) {
                        #expect(try tx.delete(t, k) == (present.remove(k) != nil))
                    } else {
                        try tx.put(t, k, TreeFillTests.value(Int(k[7])))
                        present.insert(k)
                    }
                }
            }
            let now = try TreeShapeTests.summary(s)
            #expect(now.entries == present.count, "seed \(seed), round \(round)")
            #expect(now.oneChildBranches <= sparse.oneChildBranches, "seed \(seed), round \(round)")
            #expect(now.emptyLeaves <= sparse.emptyLeaves, "seed \(seed), round \(round)")
            #expect(try Self.leafDepths(s) == [now.depth], "seed \(seed), round \(round)")
            sparse = now
        }
        #expect(try s.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
        while sparse.oneChildBranches > 0 {
            let (path, deleted) = try s.read { tx in
                let t = try #require(try tx.tree(named: "t"))
                let path = try #require(try Self.pathToOneChildBranch(tx, t))
                return (path, try Self.firstKey(tx, t, under: path))
            }
            guard let deleted else {
                Issue.record("seed \(seed): no key under the one-child branch at \(path)")
                break
            }
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                #expect(try tx.delete(t, deleted))
            }
            present.remove(deleted)
            let now = try TreeShapeTests.summary(s)
            #expect(now.oneChildBranches < sparse.oneChildBranches, "seed \(seed): the delete under \(path)")
            #expect(now.emptyLeaves <= sparse.emptyLeaves)
            #expect(try Self.leafDepths(s) == [now.depth], "seed \(seed): the delete under \(path)")
            if now.oneChildBranches >= sparse.oneChildBranches { break }
            sparse = now
        }
        #expect(try s.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
        return present
      }
    }
}
