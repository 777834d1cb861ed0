import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A repository's query-language fetch whose condition sums beyond a type's range throws the
/// store's `QueryError` for that sum on PostgreSQL too: outside a transaction, inside one and
/// (for a condition with one sum) inside a unit.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresRepositoryOverflowTests {
    /// Entity 1's doubles overflow, entity 2's ints.
    final class Sums: EntityType {
        var id = 0
        var ints: [Int] = []
        var doubles: [Double] = []
        init() {}
    }

    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Sums", "primaryKey": "id", "properties": {"id": "int", "ints": "int[]", "doubles": "double[]"}}]}
        """#.utf8), fileName: "sums")

    static func save(_ repo: some QueryLanguageRepository) throws {
        try repo.beginWrite()
        // Held until saved: the repository follows its entities weakly.
        var added: [Sums] = []
        for (id, ints, doubles) in [(1, [1], [1e308, 1e308]), (2, [Int.max, 1], [1.0])] {
            let entity = try repo.addEntity(Sums.self)
            (entity.id, entity.ints, entity.doubles) = (id, ints, doubles)
            added.append(entity)
        }
        try repo.endWrite()
        #expect(added.count == 2)
    }

    static func error(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func aFetchsSumOutOfRangeIsTheStoresError() throws {
        let store = TroveRepository(store: try Store(configuration: .inMemory(schema: Self.schema)))
        let postgres = PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema))
        try Self.save(store)
        try Self.save(postgres)
        let predicates = ["doubles.@sum > 0", "ints.@sum > 0", "ints.@avg > 0 AND doubles.@sum > 0", "doubles.@sum < ints.@sum",
                          "id == 2 AND ints.@sum > 0"]
        for predicate in predicates {
            let fromStore = Self.error { _ = try store.fetch(Sums.self, where: predicate) }
            #expect((fromStore as? QueryError)?.message.contains("out of the range") == true, "store: \(predicate): \(String(describing: fromStore))")
            // A unit's failed statement fails its transaction, so there the condition's first sum is
            // named without re-checks (`PostgresStore.overflowingSum`): one sum alone is certain.
            let sums = predicate.components(separatedBy: "@").count - 1
            for place in sums == 1 ? ["", "begin", "atomically"] : ["", "begin"] {
                let fromPostgres = Self.error {
                    switch place {
                    case "begin":
                        try postgres.store.begin()
                        defer { try? postgres.store.rollback() }
                        _ = try postgres.fetch(Sums.self, where: predicate)
                    case "atomically":
                        try postgres.store.atomically { _ = try postgres.fetch(Sums.self, where: predicate) }
                    default:
                        _ = try postgres.fetch(Sums.self, where: predicate)
                    }
                }
                #expect(fromPostgres as? QueryError == fromStore as? QueryError && fromStore != nil,
                        "\(place): \(predicate): PostgreSQL \(String(describing: fromPostgres)), store \(String(describing: fromStore))")
            }
        }
        // The repository goes on: a fetch that sums within range answers.
        #expect(try postgres.fetch(Sums.self, where: "ints.@count == 1").map(\.id) == [1])
    }
}
