#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// The rows of a query with SELECT or GROUP read from PostgreSQL: named values, as a store's
/// `QueryRows` hold them (a link is its target's primary key, a link to a model without one a
/// `.reference` whose key is the object's `"@key"`, a path through a list an array).
public struct PostgresProjectedRows: Sendable, Equatable {
    /// The column names: each SELECT item's name, or without SELECT the GROUP key paths and
    /// `@count`.
    public var columns: [String]
    public var rows: [[Value]]
    /// What tells rows apart across runs (`watch`): the object's key, or the group's values.
    public var identities: [String]

    /// A sum of decimals beyond a `Decimal`'s range, in column `column`: the caller names it
    /// as a store does (`QueryError.sumOutOfRange`).
    struct DecimalSumOutOfRange: Error {
        var column: Int
    }

    init(columns: [PostgresProjectedColumn], rows: [[String?]]) throws {
        self.columns = columns.map(\.name)
        identities = rows.map { $0.last.flatMap { $0 } ?? "" }
        self.rows = try rows.map { row in
            var values: [Value] = []
            var index = 0
            for (number, column) in columns.enumerated() {
                values.append(try Self.value(row[index..<(index + column.width)], column.reading, column: number))
                index += column.width
            }
            return values
        }
    }

    private static func value(_ texts: ArraySlice<String?>, _ reading: PostgresProjectedColumn.Reading, column: Int) throws -> Value {
        let text = texts[texts.startIndex]
        switch reading {
        case .scalar(let type):
            return try PostgresValues.value(text, type: type)
        case .list(let element):
            // Null only through a null link on the way (`bestFriend.dogs.name`).
            guard let text else { return .null }
            return try PostgresValues.list(text, element: element)
        case .reference(let model):
            guard let text else { return .null }
            return try reference(text, model: model)
        case .references(let model):
            guard let text else { return .null }
            guard case .list(let keys) = try PostgresValues.list(text, element: .string) else {
                throw PostgresError("PostgreSQL returned '\(text)' for a list of keys of '\(model)'")
            }
            return .list(try keys.map { key in
                switch key {
                // A null link on the way (`boxes.inner` of a box without one).
                case .null: return .null
                case .string(let key): return try reference(key, model: model)
                default: throw PostgresError("PostgreSQL returned '\(text)' for a list of keys of '\(model)'")
                }
            })
        case .decimalSum:
            guard let sum = try PostgresValues.decimalSum(text) else { throw DecimalSumOutOfRange(column: column) }
            return sum
        case .decimalAverage:
            return try PostgresValues.decimalAverage(sum: text, count: texts[texts.startIndex + 1])
        }
    }

    /// The object of `model` whose `"@key"` is `text`.
    private static func reference(_ text: String, model: String) throws -> Value {
        guard let key = Int64(text) else { throw PostgresError("PostgreSQL returned '\(text)' for a key of '\(model)'") }
        return .reference(ObjectReference(model: model, key: UInt64(bitPattern: key)))
    }

    /// Whether every value of `columns` (the columns read) that is a fast sum
    /// (`PostgresProjectedColumn.fastSum`) is finite, so that it is the answer.
    func fastSumsAreFinite(_ columns: [PostgresProjectedColumn]) -> Bool {
        let fast = columns.indices.filter { columns[$0].fastSum }
        guard !fast.isEmpty else { return true }
        return rows.allSatisfy { row in
            fast.allSatisfy { if case .double(let value) = row[$0] { value.isFinite } else { true } }
        }
    }

    /// The rows as JSON objects, as `QueryRow.json` writes a store's: a link to a model
    /// without a primary key is its object's `"@key"`, since the rows hold no snapshot to read
    /// the object from (the shell prints it nested, read in the query's snapshot).
    public var json: [JSONObject] {
        rows.map { values in JSONObject(zip(columns, values).map { ($0, $1.jsonValue) }) }
    }
}
