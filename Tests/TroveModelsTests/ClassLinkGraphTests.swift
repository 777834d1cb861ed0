import Testing
import Trove
import TroveModels

/// A class that links to several instances of its own model.
@Model final class Follower {
    @Attribute(.primaryKey) var id: Int
    var follows: [Follower] = []

    init(id: Int) { self.id = id }
}

/// A class with two links to its own model, which may point at one instance.
@Model final class Fork {
    @Attribute(.primaryKey) var id: Int
    var left: Fork?
    var right: Fork?

    init(id: Int) { self.id = id }
}

/// A struct model that links to a class model.
@Model struct NodeChore {
    @Attribute(.primaryKey) var id: Int
    var title: String
    var node: Node?
}

/// A class whose primary key is optional, so may be nil.
@Model final class OptionalKeyTag {
    @Attribute(.primaryKey) var code: String?
    var label: String

    init(code: String?, label: String) {
        self.code = code
        self.label = label
    }
}

/// A struct model that links to a class model with an optional key, alone and in a list.
@Model struct TaggedPost {
    @Attribute(.primaryKey) var id: Int
    var tag: OptionalKeyTag?
    var tags: [OptionalKeyTag] = []
}

/// A class model and a struct model that link to each other, so that a chain alternates them.
@Model final class Householder {
    @Attribute(.primaryKey) var id: Int
    var home: Household?

    init(id: Int, home: Household? = nil) {
        self.id = id
        self.home = home
    }
}

@Model struct Household {
    @Attribute(.primaryKey) var id: Int
    var owner: Householder?
}

/// A class model without a primary key, and a struct model that links to it twice.
@Model final class Sticker {
    var label: String

    init(label: String) { self.label = label }
}

@Model struct Scrapbook {
    @Attribute(.primaryKey) var id: Int
    var cover: Sticker?
    var back: Sticker?
}

/// Graphs of linked class instances: cycles, shared instances and long chains, as writes and
/// partial updates meet them.
@Suite struct ClassLinkGraphTests {
    /// The writes of a transaction share their bookkeeping of linked instances: what a
    /// refused write met (`x`, before the cycle) is neither taken by the next as written nor
    /// written with the values it had then: `x` links `d` by the next write.
    @Test func aWriteAfterARefusedOneInTheSameTransactionWritesTheInstancesItLinks() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Fork.self)))
        let a = Fork(id: 1), b = Fork(id: 2), x = Fork(id: 5), c = Fork(id: 6), d = Fork(id: 7)
        a.left = x; a.right = b; b.right = a
        c.left = x
        let refused = try store.write { tx in
            let refused = (try? tx.insert(a)) == nil
            x.right = d
            try tx.insert(c)
            return refused
        }
        #expect(refused)
        let (ids, linked, xLinks) = try store.read { s in
            (try s.objects(Fork.self).map(\.id).sorted(), try s.object(Fork.self, primaryKey: 6)?.left?.id,
             try s.object(Fork.self, primaryKey: 5)?.right?.id)
        }
        #expect(ids == [5, 6, 7])
        #expect(linked == 5)
        #expect(xLinks == 7)
    }

    @Test(.timeLimit(.minutes(1)))
    func aCycleWhoseInstancesLinkToTwoOthersIsRefusedAtOnce() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Follower.self)))
        let a = Follower(id: 1), b = Follower(id: 2), c = Follower(id: 3)
        a.follows = [b, c]; b.follows = [a, c]; c.follows = [a, b]
        #expect { try store.write { tx in try tx.insert(a) } } throws: { error in
            "\(error)".contains("cycle")
        }
        #expect(try store.read { try $0.object(Follower.self, primaryKey: 1) } == nil)
    }

    @Test func theCycleErrorNamesTheLinksItFollows() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Fork.self)))
        let a = Fork(id: 1), b = Fork(id: 2)
        a.left = b; b.right = a
        // The write of `a` meets `b`, then `a`, then `b` again: the cycle runs from `b`.
        #expect { try store.write { tx in try tx.insert(a) } } throws: { error in
            "\(error)".contains("a cycle of linked instances (Fork.right, Fork.left) cannot be written as nested objects")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func instancesSharedThroughManyPathsAreWrittenOnce() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Follower.self, Fork.self)))
        // Each level links twice to the one below: 2^24 paths through 25 instances.
        var below = Follower(id: 0)
        for id in 1..<25 {
            let level = Follower(id: id)
            level.follows = [below, below]
            below = level
        }
        let top = below
        let left = Follower(id: 100), right = Follower(id: 101), bottom = Follower(id: 102)
        left.follows = [bottom]; right.follows = [bottom]
        let diamond = Follower(id: 103)
        diamond.follows = [left, right]
        // `tine`, met twice, would also be inserted once by nested writes (the second is an
        // update of the object the first inserted): the ladder is what shows each instance
        // is built and written once.
        let fork = Fork(id: 1), tine = Fork(id: 2)
        fork.left = tine; fork.right = tine
        tine.left = Fork(id: 3)
        let changes = try store.write { tx in
            try tx.insert(diamond)
            try tx.insert(fork)
            try tx.insert(top)
            return tx.changes
        }
        #expect(changes["Follower"]?.inserted.count == 29 && changes["Fork"]?.inserted.count == 3)
        try store.read { s in
            let read = try #require(try s.object(Follower.self, primaryKey: 103))
            #expect(read.follows.map(\.id) == [100, 101])
            #expect(read.follows.map { $0.follows.map(\.id) } == [[102], [102]])
            let readFork = try #require(try s.object(Fork.self, primaryKey: 1))
            #expect(readFork.left?.id == 2 && readFork.right?.id == 2 && readFork.right?.left?.id == 3)
            // Each level of the ladder links twice to the level below, read by key: a typed
            // read of the top would follow every path.
            for id in 1..<25 {
                let level = try #require(try s.object("Follower", primaryKey: .int(Int64(id))))
                let below: Value? = .int(Int64(id - 1))
                #expect(try level.list("follows").map { try $0.primaryKey } == [below, below])
            }
            #expect(try s.object(Follower.self, primaryKey: 3)?.follows.map { $0.follows.map(\.id) } == [[1, 1], [1, 1]])
        }
        // Built outside a write, an instance's nested value is built once.
        _ = try NestedValueCount.of(top)
    }

    /// Pins the result: nested writes would store `ann` once too (the transaction's memo of
    /// nested writes finds the repeat), so this is no proof that the instance is written once.
    @Test func aStructHoldingSharedInstancesStoresEachOnce() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Booking.self)))
        let ann = Patron(id: 1, name: "Ann")
        let hall = Venue(id: 10, patron: ann, regulars: [ann, Patron(id: 2, name: "Bob"), ann])
        let changes = try store.write { tx in
            try tx.insert(Booking(id: 1, venue: hall))
            return tx.changes
        }
        #expect(changes["Patron"]?.inserted.count == 2)
        let read = try #require(try store.read { try $0.object(Booking.self, primaryKey: 1) })
        #expect(read.venue?.patron?.name == "Ann" && read.venue?.regulars.map(\.id) == [1, 2, 1])
    }

    @Test func aChainLongerThanAReadFollowsIsNotCalledACycle() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Node.self)))
        var chain = Node(id: 0)
        for id in 1...40 { chain = Node(id: id, next: chain) }
        #expect { try store.write { tx in try tx.insert(chain) } } throws: { error in
            "\(error)".contains("nested more than 32 deep") && !"\(error)".contains("cycle")
        }
        var short = Node(id: 0)
        for id in 1...30 { short = Node(id: id, next: short) }
        try store.write { tx in try tx.insert(short) }
        #expect(try store.read { try $0.object(Node.self, primaryKey: 30) }?.next?.next?.id == 28)
    }

    @Test func aPartialUpdateComparesALinkedCycleOnce() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(NodeChore.self, Node.self)))
        let a = Node(id: 1), b = Node(id: 2, next: a)
        a.next = b
        var chore = NodeChore(id: 1, title: "x", node: nil)
        try store.write { tx in
            try tx.insert(chore)
            chore.node = a
            chore = try tx.update(chore) { $0.title = "y" }
        }
        #expect(try store.read { try $0.object(NodeChore.self, primaryKey: 1) }?.title == "y")
        // Two distinct graphs of the same shape compare equal, and the comparison ends.
        let c = Node(id: 1), d = Node(id: 2, next: c)
        c.next = d
        #expect(Node._storedEqual(a, c))
        #expect(!Node._storedEqual(a, d))
    }

    @Test func anUpdateOfAClassListedByHandChangesTheInstanceAndWritesItsEarlierChanges() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(ClubMember.self, ClubPet.self)))
        let member = ClubMember()
        member.id = 1
        member.name = "Ann"
        try store.write { tx in try tx.insert(member) }
        member.name = "Annie"
        let result = try store.write { tx in try tx.update(member) { $0.name += "!" } }
        #expect(result === member)
        #expect(member.name == "Annie!")
        #expect(try store.read { try $0.object(ClubMember.self, primaryKey: 1) }?.name == "Annie!")
    }

    @Test func aLinkedInstanceWithANilKeyIsWrittenAsItsNestedObjectAndLinked() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(TaggedPost.self, OptionalKeyTag.self)))
        try store.write { tx in try tx.insert(TaggedPost(id: 1, tag: OptionalKeyTag(code: nil, label: "misc"))) }
        #expect(try store.read { try $0.object(TaggedPost.self, primaryKey: 1) }?.tag?.label == "misc")
        try store.write { tx in try tx.insert(TaggedPost(id: 2, tag: nil, tags: [OptionalKeyTag(code: nil, label: "x")])) }
        #expect(try store.read { try $0.object(TaggedPost.self, primaryKey: 2) }?.tags.map(\.label) == ["x"])
    }

    @Test func anUpdateOfAMissingObjectWritesNoLinkedInstance() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(NodeChore.self, Node.self)))
        let failed = try store.write { tx -> Bool in
            do {
                _ = try tx.update(NodeChore(id: 99, title: "gone", node: nil)) { $0.node = Node(id: 7) }
                return false
            } catch StoreError.objectNotFound(_, _) {
                return true
            }
        }
        #expect(failed)
        #expect(try store.read { try $0.object(Node.self, primaryKey: 7) } == nil)
    }
}

extension ClassLinkGraphTests {
    /// Each player's one team: an instance written so already in the transaction is not
    /// written again, and is when its values, or the stored object, changed since.
    @Test func anInstanceLinkedAgainInATransactionIsWrittenWhenItOrItsObjectChanged() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(PersonObject.self)))
        let rex = DogObject(id: 1, name: "Rex")
        let changes = try store.write { tx in
            try tx.insert(PersonObject(id: 1, name: "a", bestFriend: rex))
            try tx.insert(PersonObject(id: 2, name: "b", bestFriend: rex))
            #expect(try tx.object(DogObject.self, primaryKey: 1)?.name == "Rex")
            rex.name = "Max"
            try tx.insert(PersonObject(id: 3, name: "c", bestFriend: rex))
            #expect(try tx.object(DogObject.self, primaryKey: 1)?.name == "Max")
            try tx.update("Dog", primaryKey: .int(1), ["name": .string("Other")])
            try tx.insert(PersonObject(id: 4, name: "d", bestFriend: rex))
            return tx.changes
        }
        #expect(changes["Dog"]?.inserted.count == 1 && changes["Person"]?.inserted.count == 4)
        let (name, friends) = try store.read { s in
            (try s.object(DogObject.self, primaryKey: 1)?.name, try s.objects(PersonObject.self).map { $0.bestFriend?.id })
        }
        #expect(name == "Max" && friends == [1, 1, 1, 1])
    }

    @Test func aChainOfMoreThan32LinksThroughStructValuesIsWrittenButNotReadAsATypedValue() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Householder.self)))
        // 18 class instances with a struct value between each two: 34 links.
        var top = Householder(id: 17)
        for id in (0..<17).reversed() { top = Householder(id: id, home: Household(id: id, owner: top)) }
        try store.write { tx in try tx.insert(top) }
        try store.read { s in
            // The limit on writes counts class instances, and struct values between them are
            // not counted (README); reads follow 32 links.
            #expect { try s.object(Householder.self, primaryKey: 0) } throws: { error in
                error is ModelDecodingError && "\(error)".contains("links followed more than 32 deep")
            }
            #expect(try s.object(Householder.self, primaryKey: 2)?.home?.owner?.id == 3)
            let last = try #require(try s.object("Household", primaryKey: .int(16)))
            #expect(try last.object("owner")?.primaryKey == .int(17))
        }
    }

    @Test func aKeylessClassInstanceLinkedTwiceIsWrittenOncePerLink() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Scrapbook.self)))
        let star = Sticker(label: "star")
        let changes = try store.write { tx in
            try tx.insert(Scrapbook(id: 1, cover: star, back: star))
            return tx.changes
        }
        // Without a key there is no object to upsert: each link gets a nested object of its own.
        #expect(changes["Sticker"]?.inserted.count == 2)
        let read = try #require(try store.read { try $0.object(Scrapbook.self, primaryKey: 1) })
        #expect(read.cover?.label == "star" && read.back?.label == "star")
    }

    @Test func aPartialUpdateLinkingASharedInstanceStoresItOnceAndLinksItEachPlace() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Booking.self)))
        try store.write { tx in try tx.insert(Booking(id: 1, venue: nil)) }
        let ann = Patron(id: 1, name: "Ann")
        let changes = try store.write { tx in
            _ = try tx.update(Booking(id: 1, venue: nil)) {
                $0.venue = Venue(id: 10, patron: ann, regulars: [ann, Patron(id: 2, name: "Bob"), ann])
            }
            return tx.changes
        }
        #expect(changes["Patron"]?.inserted.count == 2 && changes["Venue"]?.inserted.count == 1)
        let read = try #require(try store.read { try $0.object(Booking.self, primaryKey: 1) })
        #expect(read.venue?.patron?.name == "Ann" && read.venue?.regulars.map(\.id) == [1, 2, 1])
    }
}

/// Builds a class instance's nested value alone, as a write does before it stores it.
enum NestedValueCount {
    static func of(_ value: Follower) throws -> Value { try value._writtenValue() }
}
