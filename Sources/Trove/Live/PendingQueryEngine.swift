// TEMPORARY: stands in for the query engine (branch `engine`) until it lands on main, with
// the signatures it will have. Delete this file when merging main brings the engine in.
import Foundation

extension Snapshot {
    func objects(_ model: String, where predicate: String, arguments: [Value]) throws -> Results {
        throw StoreError.invalidArgument("predicates need the query engine, which has not landed on this branch yet")
    }
}

extension Results {
    func sorted(by descriptors: [(keyPath: String, ascending: Bool)]) throws -> Results {
        let objects = Array(self)
        let sortValues = try objects.map { o in try descriptors.map { try o.value(atKeyPath: $0.keyPath) } }
        let order = objects.indices.sorted { a, b in
            for (i, k) in descriptors.enumerated() {
                let x = sortValues[a][i], y = sortValues[b][i]
                if PendingOrder.less(x, y) { return k.ascending }
                if PendingOrder.less(y, x) { return !k.ascending }
            }
            return a < b
        }
        return Results(snapshot: snapshot, model: model, keys: order.map { keys[$0] })
    }
}

enum PendingOrder {
    static func less(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): false
        case (.null, _): true
        case (_, .null): false
        case let (.int(x), .int(y)): x < y
        case let (.double(x), .double(y)): x < y
        case let (.string(x), .string(y)): Array(x.unicodeScalars.map(\.value)).lexicographicallyPrecedes(y.unicodeScalars.map(\.value))
        case let (.date(x), .date(y)): x < y
        case let (.bool(x), .bool(y)): !x && y
        default: a.description < b.description
        }
    }
}
