/// How a query ran: the access path the planner chose, the steps after it, and row counts.
///
/// ```swift
/// let plan = try snapshot.explain("Person where name BEGINSWITH 'A' SORT(age DESC) LIMIT(10)")
/// print(plan)
/// // SEARCH Person USING INDEX name (name BEGINSWITH "A")
/// // FILTER name BEGINSWITH "A"
/// // SORT age DESC (top 10)
/// // LIMIT 10
/// // rows: 3 estimated, 3 examined, 3 returned
/// ```
public struct QueryPlan: Sendable, CustomStringConvertible {
    /// How candidates are found.
    public enum Access: Sendable, Hashable {
        /// Every object of the model is read.
        case scan
        /// Objects are looked up by primary key.
        case primaryKey(property: String)
        /// A range of a secondary index is read.
        case index(property: String)
        /// The union of several lookups, one per operand of an `OR`.
        case union([Access])
        /// The predicate is always false: nothing is read.
        case none
        /// The matching objects of a linked model are found first, then the objects whose
        /// to-one `link` points at them, through the backlink index.
        case backlinks(link: String)
    }

    /// The model queried.
    public let model: String
    public let access: Access
    /// The plan's steps, one line each, in the order they run.
    public let steps: [String]
    /// The rows the access path was expected to produce: the model's object count for a scan,
    /// the (capped) count of index entries for an index.
    public let estimatedRows: Int
    /// The objects the predicate was checked against.
    public let examinedRows: Int
    /// The objects returned.
    public let actualRows: Int

    /// Whether the keys of the indexes read decided the predicate: no object was read to test it.
    var isDecidedByIndex = false

    /// The names of the indexed properties the plan reads (the primary key included).
    public var indexes: [String] {
        func names(_ access: Access) -> [String] {
            switch access {
            case .scan, .none, .backlinks: []
            case .primaryKey(let p), .index(let p): [p]
            case .union(let parts): parts.flatMap(names)
            }
        }
        var seen = Set<String>()
        return names(access).filter { seen.insert($0).inserted }
    }

    /// The plan with `more` steps after its own, returning `rows` rows.
    func adding(_ more: [String], returning rows: Int) -> QueryPlan {
        QueryPlan(model: model, access: access, steps: steps + more, estimatedRows: estimatedRows,
                  examinedRows: examinedRows, actualRows: rows, isDecidedByIndex: isDecidedByIndex)
    }

    /// Whether the plan reads every object of the model.
    public var isScan: Bool { access == .scan }

    public var description: String {
        (steps + ["rows: \(estimatedRows) estimated, \(examinedRows) examined, \(actualRows) returned"]).joined(separator: "\n")
    }
}
