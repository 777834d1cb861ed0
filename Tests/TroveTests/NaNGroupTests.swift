import Foundation
import Testing
@testable import Trove

/// Every NaN is one value to GROUP, DISTINCT, a watched group's identity and a controller's
/// sections, whatever its payload, and -0 and 0 are one value, as SORT orders them: the NaN
/// group comes where SORT puts NaN (after every number ascending, before them descending), a
/// group of zeros shows its first object's zero.
@Suite("one group of NaN")
struct NaNGroupTests {
    /// The doubles of `d` (and as floats, of `f`) in object-key order: NaN with three
    /// payloads and signs, -0 before 0, a null.
    static let doubles: [Double?] = [2, .nan, -0.0, 1, Double(nan: 7, signaling: false), 0, nil, -.nan, .infinity, 1]

    /// Doubles and floats have no index, so GROUP of them is always the hashed kind.
    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": {"type": "int", "indexed": true},
              "d": "double?", "f": "float?"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for (i, d) in doubles.enumerated() {
                try tx.insert("M", ["id": .int(Int64(i)), "g": .int(Int64(i % 2)),
                                    "d": d.map(Value.double) ?? .null, "f": d.map { .float(Float($0)) } ?? .null])
            }
        }
        return store
    }

    /// A value as the tests compare it: NaN as `nan` (whatever its payload), a zero with its sign.
    static func text(_ value: Value) -> String {
        switch value {
        case .double(let d): d.isNaN ? "nan" : "\(d)"
        case .float(let f): f.isNaN ? "nan" : "\(Double(f))"
        default: "\(value)"
        }
    }

    static func texts(_ rows: QueryRows) -> [[String]] { rows.map { $0.values.map(text) } }

    /// The groups of `d` and `f`: null, the zeros (shown as -0, the first), 1, 2, infinity, NaN.
    static let ascending = [["null", "1"], ["-0.0", "2"], ["1.0", "2"], ["2.0", "1"], ["inf", "1"], ["nan", "3"]]

    @Test func everyNaNIsOneGroupWhereSortPutsNaN() throws {
        let store = try Self.store()
        try store.read { snapshot in
            for property in ["d", "f"] {
                for prefersIndexes in [false, true] {
                    let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes)
                    func rows(_ text: String) throws -> [[String]] {
                        guard case .rows(let rows) = try executor.answer(text, arguments: []).0 else {
                            Issue.record("\(text): no rows")
                            return []
                        }
                        return Self.texts(rows)
                    }
                    #expect(try rows("M GROUP(\(property))") == Self.ascending, "\(property) \(prefersIndexes)")
                    #expect(try rows("M GROUP(\(property)) SORT(\(property) DESC)") == Self.ascending.reversed(), "\(property) \(prefersIndexes)")
                    #expect(try rows("M GROUP(\(property)) SELECT(\(property), @count) SORT(\(property) DESC) LIMIT(1)") == [["nan", "3"]])
                    #expect(try rows("M GROUP(\(property)) SELECT(\(property), @count) LIMIT(2)") == Array(Self.ascending.prefix(2)))
                    #expect(try rows("M where \(property) > 0 OR \(property) == nil GROUP(\(property))") == [["null", "1"], ["1.0", "2"], ["2.0", "1"], ["inf", "1"]])
                    // With a second key, each NaN of one `g` is one group.
                    #expect(try rows("M where id == 1 OR id == 4 OR id == 7 GROUP(\(property), g)") == [["nan", "0", "1"], ["nan", "1", "2"]])
                }
                // The groups come in the order SORT and DISTINCT give their values.
                for direction in ["ASC", "DESC"] {
                    let sorted = try snapshot.rows("M SORT(\(property) \(direction)) DISTINCT(\(property)) SELECT(\(property))")
                    let groups = try snapshot.rows("M GROUP(\(property)) SELECT(\(property)) SORT(\(property) \(direction))")
                    #expect(Self.texts(sorted) == Self.texts(groups), "\(property) \(direction)")
                }
            }
        }
    }

    @Test func distinctKeepsOneNaN() throws {
        let store = try Self.store()
        try store.read { snapshot in
            for property in ["d", "f"] {
                // Without SORT the first object of each value is kept, in object order.
                let unsorted = try snapshot.query("M DISTINCT(\(property))").idsInOrder
                #expect(unsorted == [0, 1, 2, 3, 6, 8])
                let sorted = try snapshot.query("M SORT(\(property)) DISTINCT(\(property))").idsInOrder
                #expect(sorted == [6, 2, 3, 0, 8, 1])
                let limited = try snapshot.query("M SORT(\(property) DESC) DISTINCT(\(property), g) LIMIT(2)").idsInOrder
                #expect(limited == [1, 4])
                #expect(try snapshot.objects("M").distinct(by: [property]).count == 6)
                #expect(try snapshot.rows("M DISTINCT(\(property)) SELECT(id, \(property))").count == 6)
            }
        }
    }

    /// A watched group is matched to itself in the next run by its identity.
    @Test func aGroupOfNaNIsTheSameGroupInEachRun() {
        let nan = QueryRow.Identity.group([.double(.nan), .int(1)])
        let other = QueryRow.Identity.group([.double(-Double(nan: 7, signaling: false)), .int(1)])
        #expect(nan == other)
        #expect(Set([nan, other]).count == 1)
        #expect(QueryRow.Identity.group([.float(.nan)]) == .group([.float(-.nan)]))
        #expect(QueryRow.Identity.group([.double(.nan)]) != .group([.double(1)]))
        #expect(QueryRow.Identity.group([.double(-0.0)]) == .group([.double(0)]))
    }

    @Test func aControllerKeepsEveryNaNInOneSection() throws {
        let store = try Self.store()
        let controller = ResultsController(store: store, request: ResultsRequest("M", sortedBy: [SortKey("d"), SortKey("id")]),
                                           sectionKeyPath: "d", queue: DispatchQueue(label: "test"))
        try controller.performFetch()
        #expect(controller.sections.map { "\(Self.text($0.key)): \($0.count)" }
                == ["null: 1", "-0.0: 2", "1.0: 2", "2.0: 1", "inf: 1", "nan: 3"])
    }

    /// Rows compare their values as stored: a row holding NaN equals itself and the same row
    /// read again, and hashes alike; strings compare by their bytes.
    @Test func aRowHoldingNaNEqualsItselfAndHashesAlike() throws {
        let store = try Self.store()
        let rows = try store.read { try $0.rows("M SORT(id) SELECT(id, d, f)") }
        let again = try store.read { try $0.rows("M SORT(id) SELECT(id, d, f)") }
        for (row, same) in zip(rows, again) {
            #expect(row == row)
            #expect(row == same)
            #expect(row.hashValue == same.hashValue)
        }
        #expect(rows == again)
        #expect(Set(rows.rows + again.rows).count == rows.count)
        let nan = QueryRow(names: ["d"], values: [.double(.nan)], identity: .group([.double(.nan)]))
        #expect(nan == nan)
        #expect(QueryRow(names: ["d"], values: [.double(-0.0)], identity: .group([])) == QueryRow(names: ["d"], values: [.double(0)], identity: .group([])))
        let composed = QueryRow(names: ["s"], values: [.string("\u{E9}")], identity: .group([]))
        let decomposed = QueryRow(names: ["s"], values: [.string("e\u{301}")], identity: .group([]))
        #expect(composed != decomposed)
    }
}

extension Results {
    /// The objects' `id`s, in order.
    fileprivate var idsInOrder: [Int64] {
        get throws {
            var ids: [Int64] = []
            for object in self { ids.append(try object.int("id")!) }
            return ids
        }
    }
}
