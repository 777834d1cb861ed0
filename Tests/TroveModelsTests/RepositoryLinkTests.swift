import Testing
import Trove
import TroveModels

/// A member of a club: a self-link to a best friend (saved as a nested copy, as `Codable`
/// encodes a class property), and the pets whose `owner` is this member.
final class ClubMember: EntityType, PersistentModel {
    var id = 0
    var name = ""
    var bestFriend: ClubMember?
    var pets: [ClubPet] = []
    init() {}

    private enum CodingKeys: String, CodingKey { case id, name, bestFriend }

    static let modelProperties: [ModelProperty<ClubMember>] = [
        .init("id", \ClubMember.id, primaryKey: true),
        .init("name", \ClubMember.name),
        .init("bestFriend", \ClubMember.bestFriend),
        .init("pets", linkingObjects: \ClubMember.pets, origin: "owner"),
    ]
}

/// A pet, without a primary key, whose link to its owner is saved as the owner's primary key.
final class ClubPet: EntityType, PersistentModel {
    var name = ""
    var owner: ClubMember?
    init() {}

    private enum CodingKeys: String, CodingKey { case name, owner }

    static let modelProperties: [ModelProperty<ClubPet>] = [
        .init("name", \ClubPet.name),
        .init("owner", \ClubPet.owner),
    ]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(owner?.id, forKey: .owner)
    }

    /// The owner as its key (what this type saves), or as the object a store reads back.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        if let id = try? container.decodeIfPresent(Int.self, forKey: .owner) {
            owner = ClubMember()
            owner?.id = id
        } else {
            owner = try container.decodeIfPresent(ClubMember.self, forKey: .owner)
        }
    }
}

/// A `where:` closure over entities that link to each other selects the same entities from an
/// ``InMemoryRepository`` as from a ``TroveRepository``: links, self-links and linkingObjects
/// resolve to the entities saved.
@Suite struct RepositoryLinkTests {
    typealias Fetch<T: PersistentModel> = ((ModelQuery<T, T>) -> ModelCondition<T>) throws -> [T]

    static func troveRepository() throws -> TroveRepository {
        TroveRepository(store: try Store(configuration: .inMemory(schema: Schema(ClubMember.self, ClubPet.self))))
    }

    /// Saves members in `order` (name, best friend's name) with ids 1, 2, ..., in one write.
    func save(_ order: [(String, String?)], in repo: some Repository) throws {
        try repo.beginWrite()
        var members: [String: ClubMember] = [:]
        for (i, (name, _)) in order.enumerated() {
            let member = try repo.addEntity(ClubMember.self)
            member.id = i + 1
            member.name = name
            members[name] = member
        }
        for (name, friend) in order { members[name]?.bestFriend = friend.flatMap { members[$0] } }
        try repo.endWrite()
    }

    /// The best friend saved after the member that links to it, whose nested copy of it then
    /// comes first: one entity, with its own values. (A ``TroveRepository`` refuses this
    /// save, its store inserting the nested copy before the entity; a repository in memory
    /// saves it.)
    @Test func aNestedCopySavedFirstIsOneEntity() throws {
        let repo = InMemoryRepository()
        try save([("ann", "bob"), ("bob", nil)], in: repo)
        #expect(try repo.fetch(ClubMember.self, where: { $0.name == "bob" }).map(\.id) == [2])
        #expect(try repo.fetch(ClubMember.self, where: { $0.bestFriend.name == "bob" }).map(\.name) == ["ann"])
        #expect(try repo.fetch(ClubMember.self, where: { $0.bestFriend.id == 2 }).map(\.name) == ["ann"])
    }

    /// A best friend changed through its own entity, after the member whose nested copy of it
    /// is older: the entity's values hold.
    func exerciseStaleCopy(_ repo: some Repository, members: Fetch<ClubMember>) throws {
        try save([("bob", nil), ("ann", "bob")], in: repo)
        let bob = try #require(try members { $0.name == "bob" }.first)
        try repo.beginWrite()
        bob.name = "bobby"
        try repo.endWrite()
        #expect(try members { $0.name == "bobby" }.map(\.name) == ["bobby"])
        #expect(try members { $0.name == "bob" }.isEmpty)
        #expect(try members { $0.bestFriend.name == "bobby" }.map(\.name) == ["ann"])
    }

    @Test func anOlderNestedCopyDoesNotOverwriteItsEntity() throws {
        let memory = InMemoryRepository()
        try exerciseStaleCopy(memory) { try memory.fetch(ClubMember.self, where: $0) }
        let trove = try Self.troveRepository()
        try exerciseStaleCopy(trove) { try trove.fetch(ClubMember.self, where: $0) }
    }

    /// Pets linked to their owners by key: a query through the link, one that does not touch
    /// it, and the owners' linkingObjects.
    func exerciseLinks(_ repo: some Repository, members: Fetch<ClubMember>, pets: Fetch<ClubPet>) throws {
        try save([("ann", nil), ("carl", nil), ("dee", nil)], in: repo)
        let owners = try members { $0.name != "" }
        try repo.beginWrite()
        let added = try [("rex", "ann"), ("tom", "ann"), ("fido", "carl"), ("stray", nil)].map { name, owner in
            let pet = try repo.addEntity(ClubPet.self)
            pet.name = name
            pet.owner = owners.first { $0.name == owner }
            return pet
        }
        try repo.endWrite()
        #expect(try members { $0.pets.count == 2 }.map(\.name) == ["ann"])
        #expect(try members { $0.pets.count == 0 }.map(\.name) == ["dee"])
        #expect(try pets { $0.name != "" }.map(\.name).sorted() == added.map(\.name).sorted())
        #expect(try pets { $0.name == "rex" }.map(\.name) == ["rex"])
        #expect(try pets { $0.owner.name == "ann" }.map(\.name).sorted() == ["rex", "tom"])
        #expect(try pets { $0.owner == nil }.map(\.name) == ["stray"])
    }

    @Test func linksByKeyAndLinkingObjectsResolve() throws {
        let memory = InMemoryRepository()
        try exerciseLinks(memory, members: { try memory.fetch(ClubMember.self, where: $0) },
                          pets: { try memory.fetch(ClubPet.self, where: $0) })
        let trove = try Self.troveRepository()
        try exerciseLinks(trove, members: { try trove.fetch(ClubMember.self, where: $0) },
                          pets: { try trove.fetch(ClubPet.self, where: $0) })
    }

    /// A repository in memory saves two entities with one primary key, which a store refuses;
    /// a `where:` fetch then names the key, and a closure predicate sees both.
    @Test func aDuplicatePrimaryKeyIsNamedByAWhereFetch() throws {
        let repo = InMemoryRepository()
        try repo.beginWrite()
        let accounts = try [1, 2].map { logins in
            let account = try repo.addEntity(Account.self)
            account.username = "ann"
            account.logins = logins
            return account
        }
        try repo.endWrite()
        #expect(try repo.fetch(Account.self, predicate: nil).map(\.logins) == accounts.map(\.logins))
        #expect(throws: StoreError.duplicatePrimaryKey(model: "Account", value: #""ann""#)) {
            try repo.fetch(Account.self, where: { $0.logins > 0 })
        }
    }
}
