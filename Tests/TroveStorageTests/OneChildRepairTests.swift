import Testing
@testable import TroveStorage

/// Branches with one child as older writers left them (the format allows them), side by
/// side: a delete through them leaves none, and copies no sibling it does not change.
@Suite struct OneChildRepairTests {
    /// A tree of 30,000 keys of 8 bytes, put in one transaction: three levels, full pages.
    static func threeLevels() throws -> (Storage, Set<[UInt8]>) {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 { try tx.put(t, key(i), TreeFillTests.value(i)) }
            #expect(t.depth == 3)
        }
        return (s, Set((0..<30_000).map { key($0) }))
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
    @Test func twoOneChildBranchesWhoseLeavesMergeLeaveNoOneChildBranch() throws {
        var (s, present) = try Self.threeLevels()
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
    }
}
