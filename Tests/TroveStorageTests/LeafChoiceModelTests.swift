import Testing
@testable import TroveStorage
import TestRandom

/// What a full leaf does with one more entry (shift entries into a sibling, how many and into
/// which, or split, and where) is what a reference model decides over every entry of the page,
/// written here from the rules `shiftIntoSibling` and `splitInsert` state. The code reads the
/// sizes of the entries it moves only; the model sums whole pages, so a shortcut that stops
/// early in the wrong place, or a broken rule, shows as different pages.
@Suite struct LeafChoiceModelTests {
    static let pageSize = StorageOptions().pageSize
    static let usable = pageSize - PageLayout.headerSize - PageLayout.trailerSize

    /// A leaf entry as stored, with its key.
    struct Entry: Equatable {
        var key: [UInt8]
        var raw: [UInt8]
        /// Bytes on the page, with the entry's slot.
        var size: Int { raw.count + 2 }
    }

    /// A tree page as read back: a leaf's entries, or a branch's keys (the first unused) and
    /// children; its free bytes.
    struct Node: Equatable {
        var entries: [Entry] = []
        var keys: [[UInt8]] = []
        var children: [Node] = []
        var free: Int
        var isLeaf: Bool { children.isEmpty }

        var leaves: [[Entry]] { isLeaf ? [entries] : children.flatMap(\.leaves) }
    }

    /// The page `pgno` and the pages under it, as the transaction sees them.
    static func read(_ tx: WriteTransaction, _ pgno: UInt64) throws -> Node {
        let v = try tx.node(pgno)
        var node = Node(free: usable - v.usedBytes)
        if v.isLeaf {
            node.entries = try (0..<v.count).map { i in
                Entry(key: Array(try v.key(i)), raw: Array(UnsafeRawBufferPointer(start: v.p + v.slot(i), count: try v.entrySize(i))))
            }
        } else {
            node.keys = try (0..<v.count).map { try $0 == 0 ? [] : Array(v.key($0)) }
            node.children = try (0..<v.count).map { try read(tx, try v.child($0)) }
        }
        return node
    }

    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// The child indices from `root` down to the leaf a search for `key` reaches: the last
    /// child whose key is at most `key`.
    static func path(to key: [UInt8], in root: Node) -> [Int] {
        var path: [Int] = [], node = root
        while !node.isLeaf {
            let i = (1..<node.keys.count).last { !precedes(key, node.keys[$0]) } ?? 0
            path.append(i)
            node = node.children[i]
        }
        return path
    }

    enum Choice: Hashable {
        case fits
        case shiftLeft(Int)
        case shiftRight(Int)
        case split(Int)
    }

    /// The model's decision for `all`, the leaf's entries with the new one at `at` (`oldCount`
    /// entries before it), under `parent` at child `index`, from the whole page:
    /// - it fits when the entries and their slots fit the usable bytes;
    /// - else it shifts into a sibling of the same parent: the count moved from the leaf's end
    ///   next to the sibling leaves both pages fitting, keeps one entry in the leaf, and makes
    ///   the two pages' bytes closest (the fewest entries on a tie); the sibling with more free
    ///   bytes is tried first (the left one on a tie), then the other; a sibling is refused when
    ///   the parent has no room for the longer separator;
    /// - else it splits: a leaf appended to keeps all its entries and the new one starts the
    ///   right page, one inserted at its start keeps the new one alone on the left, and any other
    ///   splits at the first count of entries that holds at least half the bytes, keeping one
    ///   entry on the right.
    /// Also says whether a sibling was refused for the parent's room and whether the shift went
    /// to the other sibling after the one tried first took nothing.
    static func decide(_ all: [Entry], at: Int, oldCount: Int, parent: Node?, index: Int)
        -> (choice: Choice, refusedForParentRoom: Bool, otherSibling: Bool) {
        let n = all.count
        let total = all.reduce(0) { $0 + $1.size }
        if total <= usable { return (.fits, false, false) }
        var refused = false, other = false
        if let parent {
            func count(siblingUsed used: Int, fromStart: Bool) -> Int? {
                var best: (count: Int, imbalance: Int)?
                for m in 1..<n {
                    let moved = (fromStart ? all[..<m] : all[(n - m)...]).reduce(0) { $0 + $1.size }
                    guard used + moved <= usable, total - moved <= usable else { continue }
                    let imbalance = abs(used + moved - (total - moved))
                    if best == nil || imbalance < best!.imbalance { best = (m, imbalance) }
                }
                return best?.count
            }
            func left() -> Choice? {
                guard index > 0, let m = count(siblingUsed: usable - parent.children[index - 1].free, fromStart: true)
                else { return nil }
                guard all[m].key.count - parent.keys[index].count <= parent.free else { refused = true; return nil }
                return .shiftLeft(m)
            }
            func right() -> Choice? {
                guard index + 1 < parent.children.count,
                      let m = count(siblingUsed: usable - parent.children[index + 1].free, fromStart: false)
                else { return nil }
                guard all[n - m].key.count - parent.keys[index + 1].count <= parent.free else { refused = true; return nil }
                return .shiftRight(m)
            }
            let leftFree = index > 0 ? parent.children[index - 1].free : -1
            let rightFree = index + 1 < parent.children.count ? parent.children[index + 1].free : -1
            let (first, second) = rightFree > leftFree ? (right, left) : (left, right)
            if let shift = first() { return (shift, refused, false) }
            if let shift = second() { other = true; return (shift, refused, other) }
        }
        if at == oldCount { return (.split(n - 1), refused, other) }
        if at == 0 { return (.split(1), refused, other) }
        var prefix = 0
        for s in 1...n {
            prefix += all[s - 1].size
            if prefix >= total / 2 { return (.split(min(s, n - 1)), refused, other) }
        }
        return (.split(n - 1), refused, other)
    }

    /// Puts `key` and `value` into `tree` and checks the leaves against the model's choice
    /// made on `before`; returns the tree after and what happened: the kind of choice, a
    /// sibling refused for the parent's room, the other sibling taken, a leaf three levels down.
    static func putAndCheck(_ tx: WriteTransaction, _ tree: Tree, key: [UInt8], value: [UInt8], before: Node?,
                            context: @autoclosure () -> String) throws -> (Node, [String]) {
        try tx.put(tree, key, value)
        let after = try read(tx, tree.info.root)
        guard let before else { return (after, ["first"]) }
        let entry = try #require(after.leaves.joined().first { $0.key == key })

        let path = path(to: key, in: before)
        var parent: Node? = nil, node = before, leafIndex = 0
        for i in path {
            leafIndex += node.children[..<i].reduce(0) { $0 + $1.leaves.count }
            parent = node
            node = node.children[i]
        }
        var old = node.entries
        let at = old.firstIndex { !precedes($0.key, key) } ?? old.count
        if at < old.count && old[at].key == key { old.remove(at: at) }
        var all = old
        all.insert(entry, at: at)
        let (choice, refused, otherSibling) = decide(all, at: at, oldCount: old.count, parent: parent, index: path.last ?? 0)

        var expected = before.leaves
        switch choice {
        case .fits:
            expected[leafIndex] = all
        case .shiftLeft(let m):
            expected[leafIndex - 1] += all[..<m]
            expected[leafIndex] = Array(all[m...])
        case .shiftRight(let m):
            expected[leafIndex + 1] = Array(all[(all.count - m)...]) + expected[leafIndex + 1]
            expected[leafIndex] = Array(all[..<(all.count - m)])
        case .split(let s):
            expected[leafIndex] = Array(all[s...])
            expected.insert(Array(all[..<s]), at: leafIndex)
        }
        let leaves = after.leaves
        // Compared apart, so that a failure prints where, not every entry of the tree.
        let differing = (0..<min(leaves.count, expected.count)).first { leaves[$0] != expected[$0] }
            ?? (leaves.count == expected.count ? nil : min(leaves.count, expected.count))
        #expect(differing == nil, "\(context()): \(choice) of leaf \(leafIndex) (\(all.count) entries, the new one at \(at)): leaf \(differing ?? 0) differs; entries per leaf around it \(leaves[max(0, leafIndex - 1)..<min(leaves.count, leafIndex + 3)].map(\.count)) against \(expected[max(0, leafIndex - 1)..<min(expected.count, leafIndex + 3)].map(\.count))")
        switch choice {
        case .shiftLeft, .shiftRight:
            // The shift leaves the parent in place, with the right page's first key as separator.
            var afterParent = after
            for i in path.dropLast() { afterParent = afterParent.children[i] }
            let separatorIndex = if case .shiftLeft = choice { path.last! } else { path.last! + 1 }
            #expect(afterParent.keys[separatorIndex] == afterParent.children[separatorIndex].entries.first?.key,
                    "\(context()): separator after \(choice)")
        default:
            break
        }
        let kind = switch choice {
        case .fits: "fits"
        case .shiftLeft: "shift left"
        case .shiftRight: "shift right"
        case .split: at == old.count ? "split appending" : at == 0 ? "split at the start" : "split"
        }
        var outcomes = [kind]
        if refused { outcomes.append("refused for parent room") }
        if otherSibling { outcomes.append("other sibling") }
        if path.count >= 2 { outcomes.append("three levels") }
        return (after, outcomes)
    }

    static func randomKey(_ rng: inout SplitMix64) -> [UInt8] {
        let length = rng.chance(10) ? 40 + rng.int(360) : 4 + rng.int(28)
        return (0..<length).map { _ in UInt8(0x61 + rng.int(26)) }
    }

    /// Values from empty to past the largest kept inline, which go to overflow pages.
    static func randomValue(_ rng: inout SplitMix64) -> [UInt8] {
        let length = switch rng.int(20) {
        case 0: 700 + rng.int(600)
        case 1: 2_000 + rng.int(3_000)
        case 2...5: rng.int(400)
        default: rng.int(250)
        }
        return [UInt8](repeating: UInt8(truncatingIfNeeded: length), count: length)
    }

    /// Keys and values of random sizes into three trees: one of random keys and replacements of
    /// present ones, one of ascending keys and one of descending keys (which append to a leaf
    /// and insert at a leaf's start); entries of one size under random keys into a fourth,
    /// whose siblings often have equal room and whose counts often balance equally well; and
    /// random keys of 200 to 400 bytes with small values into a fifth, whose branches fill and
    /// split. In transactions small and large. Each seed must make each kind of choice, refuse a
    /// sibling for want of room for the longer separator in the parent, shift into the other
    /// sibling after the one tried first took nothing, and put into a leaf three levels down.
    @Test(arguments: [28, 2811, 90210])
    func shiftsAndSplitsChooseWhatTheWholePageModelChooses(seed: Int) throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: UInt64(seed))
        var keys: [[UInt8]] = []
        var counter: UInt64 = 0
        var choices: [String: Int] = [:]
        for round in 0..<48 {
            let name = ["random", "random", "uniform", "ascending", "descending", "uniform", "long", "long"][round % 8]
            try s.write { tx in
                let t = try tx.tree(named: name) ?? tx.createTree(named: name)
                var before = try t.info.root == 0 ? nil : Self.read(tx, t.info.root)
                let puts = rng.chance(30) ? 150 : name == "long" ? 30 + rng.int(60) : 5 + rng.int(30)
                for j in 0..<puts {
                    let key: [UInt8]
                    switch name {
                    case "random":
                        key = !keys.isEmpty && rng.chance(15) ? rng.pick(keys) : Self.randomKey(&rng)
                        keys.append(key)
                    case "uniform":
                        key = (0..<16).map { _ in UInt8(0x61 + rng.int(16)) }
                    case "long":
                        key = (0..<(200 + rng.int(201))).map { _ in UInt8(0x61 + rng.int(26)) }
                    default:
                        counter += 1
                        let order = name == "ascending" ? counter : UInt64.max - counter
                        key = withUnsafeBytes(of: order.bigEndian) { Array($0) } + Self.randomKey(&rng).prefix(rng.int(40))
                    }
                    let value = switch name {
                    case "uniform": [UInt8](repeating: 0x75, count: 100)
                    case "long": [UInt8](repeating: 0x6c, count: rng.int(40))
                    default: Self.randomValue(&rng)
                    }
                    let (after, outcomes) = try Self.putAndCheck(tx, t, key: key, value: value, before: before,
                                                             context: "seed \(seed), round \(round), \(name) put \(j)")
                    before = after
                    for outcome in outcomes { choices[outcome, default: 0] += 1 }
                }
            }
        }
        #expect(try s.verify().isValid)
        for kind in ["fits", "shift left", "shift right", "split", "split appending", "split at the start"] {
            #expect(choices[kind, default: 0] >= 5, "seed \(seed): \(choices)")
        }
        for outcome in ["refused for parent room", "other sibling", "three levels"] {
            #expect(choices[outcome, default: 0] >= 1, "seed \(seed): \(choices)")
        }
    }
}
