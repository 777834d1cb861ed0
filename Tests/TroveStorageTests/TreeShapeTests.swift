import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// Deletes keep a tree's shape: no leaf but the root is empty, no branch has one child, and
/// a tree that shrinks loses levels. The verifier counts both shapes, which the format allows.
@Suite struct TreeShapeTests {
    /// The verified summary of tree `t`, after checking every invariant.
    static func summary(_ s: Storage, _ name: String = "t") throws -> VerifyReport.TreeSummary {
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        return try #require(report.trees.first { $0.name == name })
    }

    static func expectShapeKept(_ s: Storage, _ context: String) throws {
        let found = try s.read { tx in try tx.sparseNodes(try #require(try tx.tree(named: "t"))) }
        #expect(found.emptyLeaves == 0, "\(context): \(found.emptyLeaves) empty leaves")
        #expect(found.oneChildBranches == 0, "\(context): \(found.oneChildBranches) branches with one child")
    }

    /// Deletes the first key of the leaf reached by `path` (then child 0) from tree `t`, then
    /// expects the tree repaired: no empty leaf, no one-child branch, and `present` its keys.
    static func deleteFirstKeyOfLeaf(_ s: Storage, path: [Int], present: inout Set<[UInt8]>) throws {
        let leaf = try s.read { tx in try tx.leafKeys(try #require(try tx.tree(named: "t")), path: path) }
        let deleted = try #require(leaf.first)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.delete(t, deleted))
        }
        present.remove(deleted)
        let after = try summary(s)
        #expect(after.oneChildBranches == 0)
        #expect(after.emptyLeaves == 0)
        #expect(after.entries == present.count)
        try expectShapeKept(s, "after the delete")
        #expect(try s.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Keys of 200 bytes, ordered as `i`: branches hold about 18 children, so a run of
    /// deletes drains whole branches.
    static func longKey(_ i: Int) -> [UInt8] { key(i) + [UInt8](repeating: 0x2D, count: 192) }

    /// A tree loaded in order (full pages, full branches), then rounds that delete runs of
    /// consecutive keys and single keys and insert others, all drawn from the seeded
    /// generator: after every commit no leaf is empty and no branch has one child, and the
    /// tree holds what a set of its keys holds. A run that drains the leaves of a branch
    /// whose siblings are too full to merge with it is what makes both shapes without the rule.
    @Test(arguments: [39, 2028])
    func runsOfDeletesLeaveNoEmptyLeafNorOneChildBranch(seed: Int) throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: UInt64(seed))
        let count = 20_000
        var present = Set(0..<count)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.append(t, Self.longKey(i), TreeFillTests.value(i)) }
        }
        for round in 0..<20 {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                let start = rng.int(count), length = 1 + rng.int(3_000)
                for i in start..<min(start + length, count) where present.remove(i) != nil { #expect(try tx.delete(t, Self.longKey(i))) }
                for _ in 0..<300 {
                    let i = rng.int(count)
                    if rng.chance(50) {
                        if present.remove(i) != nil { #expect(try tx.delete(t, Self.longKey(i))) }
                    } else {
                        try tx.put(t, Self.longKey(i), TreeFillTests.value(i))
                        present.insert(i)
                    }
                }
            }
            try Self.expectShapeKept(s, "seed \(seed), round \(round)")
        }
        let summary = try Self.summary(s)
        #expect(summary.entries == present.count)
        #expect(summary.emptyLeaves == 0 && summary.oneChildBranches == 0)
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.map(\.0) == present.sorted().map { Self.longKey($0) }, "the scan differs")
    }

    /// Deleting every key but one, in ascending or random order, in many small commits or in
    /// one (which packs the leaves it wrote), leaves one leaf and no branch.
    @Test(arguments: [false, true], [1, 200])
    func deletingEveryKeyButOneLeavesOneLeaf(randomOrder: Bool, transactions: Int) throws {
        let s = try Storage.inMemory()
        let count = 30_000
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.put(t, key(i), TreeFillTests.value(i)) }
        }
        #expect(try Self.summary(s).depth >= 3)
        var rng = SplitMix64(seed: 7)
        var order = Array(0..<count)
        if randomOrder { for i in order.indices.reversed() { order.swapAt(i, rng.int(i + 1)) } }
        let kept = order.removeLast()
        let perTransaction = (order.count + transactions - 1) / transactions
        for start in stride(from: 0, to: order.count, by: perTransaction) {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for i in order[start..<min(start + perTransaction, order.count)] { #expect(try tx.delete(t, key(i))) }
            }
            try Self.expectShapeKept(s, "after deleting \(start + perTransaction)")
        }
        let summary = try Self.summary(s)
        #expect(summary.entries == 1)
        #expect(summary.depth == 1)
        #expect(summary.pages == 1)
        #expect(try s.read { try $0.dump("t") }.map(\.0) == [key(kept)])
    }

    /// Deleting every key, in ascending or random order, in many commits or one, leaves a
    /// tree with no pages.
    @Test(arguments: [false, true], [1, 200])
    func deletingEveryKeyLeavesAnEmptyTree(randomOrder: Bool, transactions: Int) throws {
        let s = try Storage.inMemory()
        let count = 30_000
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.put(t, key(i), TreeFillTests.value(i)) }
        }
        var rng = SplitMix64(seed: 11)
        var order = Array(0..<count)
        if randomOrder { for i in order.indices.reversed() { order.swapAt(i, rng.int(i + 1)) } }
        let perTransaction = (count + transactions - 1) / transactions
        for start in stride(from: 0, to: count, by: perTransaction) {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for i in order[start..<min(start + perTransaction, count)] { #expect(try tx.delete(t, key(i))) }
            }
        }
        let summary = try Self.summary(s)
        #expect(summary.entries == 0)
        #expect(summary.depth == 0)
        #expect(summary.pages == 0)
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.info.root == 0)
            #expect(try tx.cursor(t).first() == false)
        }
    }

    /// An empty leaf as an older writer left it is sound: the verifier reports it as a
    /// finding, not a problem, and a delete that merges its neighbour with it removes it.
    @Test func theVerifierCountsAnOldFilesEmptyLeafAndADeleteBesideItRemovesIt() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 { try tx.put(t, key(i), TreeFillTests.value(i)) }
        }
        var removed: [[UInt8]] = []
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            removed = try tx.emptyLeaf(t, path: [1, 1])
        }
        #expect(!removed.isEmpty)
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        let before = try #require(report.trees.first { $0.name == "t" })
        #expect(before.emptyLeaves == 1)
        #expect(before.oneChildBranches == 0)
        #expect(report.description.contains("tree t holds 1 empty leaves"))
        // Draining the leaf before it makes it underfull: it merges with its right sibling, the empty one.
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for k in try tx.leafKeys(t, path: [1, 0]) { #expect(try tx.delete(t, k)) }
        }
        let after = try Self.summary(s)
        #expect(after.emptyLeaves == 0)
        #expect(after.oneChildBranches == 0)
        try Self.expectShapeKept(s, "after the deletes")
    }

    /// A branch with one child as an older writer left it is sound: the verifier counts it,
    /// and one delete through it merges it with a sibling or shares the sibling's children.
    @Test func aDeleteThroughAnOldFilesOneChildBranchRepairsIt() throws {
        let s = try Storage.inMemory(options: OneChildRepairTests.withoutVacuum)
        let count = 30_000
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.put(t, key(i), TreeFillTests.value(i)) }
        }
        var present = Set((0..<count).map { key($0) })
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth == 3)
            for k in try tx.oneChildBranch(t, path: [1]) { present.remove(k) }
        }
        let before = try Self.summary(s)
        #expect(before.oneChildBranches == 1)
        #expect(before.emptyLeaves == 0)
        #expect(before.entries == present.count)
        try Self.deleteFirstKeyOfLeaf(s, path: [1, 0], present: &present)
    }

    /// A branch with one child under a parent with one child (an older file's): the parent
    /// cannot balance its child, so the delete merges the parent with a sibling, carrying the
    /// child along; the child is then beside a sibling, and is repaired at once.
    @Test func aDeleteThroughOneChildBranchesOnTwoLevelsRepairsBoth() throws {
        let s = try Storage.inMemory()
        let count = 20_000
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.append(t, Self.longKey(i), TreeFillTests.value(i)) }
        }
        var present = Set((0..<count).map { Self.longKey($0) })
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth == 4)
            for k in try tx.oneChildBranch(t, path: [1]) { present.remove(k) }
            for k in try tx.oneChildBranch(t, path: [1, 0]) { present.remove(k) }
        }
        let before = try Self.summary(s)
        #expect(before.oneChildBranches == 2)
        #expect(before.entries == present.count)
        try Self.deleteFirstKeyOfLeaf(s, path: [1, 0, 0], present: &present)
    }

    /// Packing at commit removes the leaves it leaves empty, and the branch they leave with
    /// no children: a run of empty leaves (an older file's) is repaired by one large commit.
    @Test func packingRemovesARunOfEmptyLeavesAndTheirBranch() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 { try tx.put(t, key(i), TreeFillTests.value(i)) }
        }
        let depth = try Self.summary(s).depth
        var removed = Set<[UInt8]>()
        var children = 0
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth == 3)
            children = try tx.childCount(t, path: [1])
            #expect(children >= WriteTransaction.packingThreshold)
            for i in 0..<children {
                for k in try tx.emptyLeaf(t, path: [1, i]) { removed.insert(k) }
            }
        }
        let summary = try Self.summary(s)
        #expect(summary.entries == 30_000 - removed.count)
        #expect(summary.emptyLeaves == 0)
        #expect(summary.oneChildBranches == 0)
        #expect(summary.depth == depth)
        try Self.expectShapeKept(s, "after packing")
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.map(\.0) == (0..<30_000).map { key($0) }.filter { !removed.contains($0) })
    }
}

/// A root that gives way to its one child keeps that child's checksum in the catalog, also
/// when the transaction never copied the child.
@Suite struct RootCollapseTests {
    /// Appends fill the left leaf of a root over two leaves, so draining the right leaf in a
    /// later transaction cannot merge it into the left one: the root then hands over to a
    /// leaf this transaction did not touch, whose checksum the catalog must carry, or the
    /// verifier and recovery refuse the file.
    @Test func aRootLeftWithAnUntouchedChildRecordsItsChecksum() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let value = [UInt8](repeating: 0x76, count: 40)
        var rightKeys: [[UInt8]] = []
        do {
            let s = try Storage(path: path)
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                var i = 0
                while t.depth < 2 { try tx.append(t, key(i), value); i += 1 }
                for _ in 0..<5 { try tx.append(t, key(i), value); i += 1 }
            }
            rightKeys = try s.read { tx in try tx.leafKeys(try #require(try tx.tree(named: "t")), path: [-1]) }
            #expect(try TreeShapeTests.summary(s).pages == 3)
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for k in rightKeys { #expect(try tx.delete(t, k)) }
                #expect(t.depth == 1)
            }
            let report = try s.verify()
            #expect(report.isValid, "\(report)")
        }
        let s = try Storage(path: path)
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        let stored = try s.read { try $0.dump("t") }
        #expect(!stored.isEmpty)
        #expect(!stored.contains { entry in rightKeys.contains(entry.0) })
    }

    /// The catalog is a tree too: dropping trees one commit at a time, the last name first,
    /// drains its leaves from the right until its root hands over to the first leaf, which
    /// the creating transaction filled and no drop touched; every commit verifies.
    @Test func droppingTreesOneByOneKeepsTheCatalogVerifiable() throws {
        let s = try Storage.inMemory()
        let padding = String(repeating: "x", count: 100)
        let names = (0..<300).map { "tree-\(1_000 + $0)-\(padding)" }
        try s.write { tx in for name in names { _ = try tx.createTree(named: name) } }
        for name in names.reversed().prefix(290) {
            let dropped = try s.write { tx in try tx.dropTree(named: name) }
            #expect(dropped)
            let report = try s.verify()
            #expect(report.isValid, "after dropping \(name): \(report)")
            if !report.isValid { break }
        }
        #expect(try s.verify().trees.count == 10)
    }
}

/// The verifier summarizes the catalog as it does each tree, shape counts included.
@Suite struct CatalogShapeTests {
    /// 300 trees make a catalog of two levels. Its summary counts its pages and trees apart
    /// from a tree named as the walk once named the catalog, and an empty catalog leaf (as
    /// an older writer may leave one) is a note on the catalog, not a problem.
    @Test func theVerifierSummarizesTheCatalogAndCountsItsShape() throws {
        let s = try Storage.inMemory()
        let padding = String(repeating: "x", count: 100)
        let names = (0..<300).map { "tree-\(1_000 + $0)-\(padding)" }
        try s.write { tx in
            for name in names { _ = try tx.createTree(named: name) }
            try tx.put(try tx.createTree(named: "(catalog)"), key(1), key(1))
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        #expect(report.catalog.entries == 301)
        #expect(report.catalog.depth == 2)
        #expect(report.catalog.pages >= 3)
        #expect(report.catalog.nodePages == report.catalog.pages)
        #expect(report.catalog.fill > 0.5)
        #expect(report.catalog.emptyLeaves == 0 && report.catalog.oneChildBranches == 0)
        let named = try #require(report.trees.first { $0.name == "(catalog)" })
        #expect(named.pages == 1 && named.nodePages == 1)

        var removed: [[UInt8]] = []
        try s.write { tx in removed = try tx.emptyLeaf(tx.catalog, path: [1]) }
        #expect(!removed.isEmpty)
        let after = try s.verify()
        #expect(after.isValid, "\(after)")
        #expect(after.catalog.emptyLeaves == 1)
        #expect(after.catalog.oneChildBranches == 0)
        #expect(after.catalog.entries == 301 - removed.count)
        #expect(after.trees.count == 301 - removed.count)
        #expect(after.description.contains("the catalog holds 1 empty leaves"))
    }
}
