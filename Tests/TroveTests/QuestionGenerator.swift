import Foundation
@testable import Trove

/// A random question over the `QueryFixtures` schema: a projection, an aggregate statement
/// (`count`, `sum`, `avg`, `min`, `max`) or a grouped query, with its text for the engine and
/// its parts for the reference.
struct RefQuestion {
    enum Form {
        case projection(items: [RefSelectItem], sort: [(ReferenceStore.SortTarget, Bool)], distinct: [[String]], offset: Int, limit: Int?)
        case aggregate(AggregateFunction, [String]?)
        case group(keys: [[String]], items: [RefSelectItem]?, sort: [(String, Bool)], offset: Int, limit: Int?)
    }

    /// What a question answers.
    enum Answer {
        case rows(RefRows)
        case value(Value)
    }

    var model: String
    var predicate: RefPredicate?
    var form: Form

    var text: String {
        let clause = predicate.map { " where \($0.ast())" } ?? ""
        func items(_ items: [RefSelectItem]) -> String { " SELECT(" + items.map(\.written).joined(separator: ", ") + ")" }
        func sort(_ keys: [(String, Bool)]) -> String {
            keys.isEmpty ? "" : " SORT(" + keys.map { "\($0.0) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ") + ")"
        }
        func page(_ offset: Int, _ limit: Int?) -> String {
            (offset > 0 ? " OFFSET(\(offset))" : "") + (limit.map { " LIMIT(\($0))" } ?? "")
        }
        switch form {
        case let .projection(selected, keys, distinct, offset, limit):
            let written = keys.map { target, ascending in
                switch target {
                case .path(let path): (path.joined(separator: "."), ascending)
                case .item(let name): (name, ascending)
                }
            }
            let unique = distinct.isEmpty ? "" : " DISTINCT(" + distinct.map { $0.joined(separator: ".") }.joined(separator: ", ") + ")"
            return model + clause + sort(written) + unique + page(offset, limit) + items(selected)
        case .aggregate(let function, let path):
            return "\(function.rawValue.dropFirst()) \(model)" + (path.map { "." + $0.joined(separator: ".") } ?? "") + clause
        case let .group(keys, selected, keysOfSort, offset, limit):
            return model + clause + " GROUP(" + keys.map { $0.joined(separator: ".") }.joined(separator: ", ") + ")"
                + (selected.map(items) ?? "") + sort(keysOfSort) + page(offset, limit)
        }
    }

    func answer(_ reference: ReferenceStore) throws -> Answer {
        switch form {
        case let .projection(items, sort, distinct, offset, limit):
            return .rows(try reference.project(model, predicate, items: items, sort: sort, distinct: distinct, offset: offset, limit: limit))
        case .aggregate(.count, _):
            return .value(.int(Int64(try reference.filter(model, predicate).count)))
        case .aggregate(let function, let path):
            return .value(try reference.aggregate(function, model, path!, predicate))
        case let .group(keys, items, sort, offset, limit):
            return .rows(try reference.group(model, predicate, keys: keys, items: items, sort: sort, offset: offset, limit: limit))
        }
    }
}

extension QueryPredicateGenerator {
    /// An item of a Person's SELECT, and whether SORT may name it (one value that orders).
    struct SelectSpec {
        var kind: RefSelectItem.Kind
        var sortable: Bool
    }

    static func path(_ text: String, sortable: Bool = false) -> SelectSpec {
        SelectSpec(kind: .path(text.split(separator: ".").map(String.init)), sortable: sortable)
    }

    static func listAggregate(_ collection: String, _ function: AggregateFunction, _ property: String? = nil) -> SelectSpec {
        SelectSpec(kind: .listAggregate(collection: collection.split(separator: ".").map(String.init), function: function,
                                        property: property.map { $0.split(separator: ".").map(String.init) }),
                   sortable: true)
    }

    static let personItems: [SelectSpec] = [
        path("name", sortable: true), path("nick", sortable: true), path("age", sortable: true), path("level", sortable: true),
        path("score", sortable: true), path("weight", sortable: true), path("born", sortable: true), path("active", sortable: true),
        path("balance", sortable: true), path("token"), path("blob"), path("id", sortable: true),
        path("bestFriend"), path("bestFriend.name", sortable: true), path("bestFriend.age", sortable: true),
        path("bestFriend.bestFriend.nick", sortable: true), path("bestFriend.born", sortable: true),
        path("tags"), path("scores"), path("dogs"), path("dogs.name"), path("dogs.age"), path("dogs.weight"),
        path("dogs.vet.rating"), path("fans.name"), path("bestFriend.tags"), path("bestFriend.dogs.age"),
        listAggregate("dogs", .count), listAggregate("tags", .count), listAggregate("scores", .count),
        listAggregate("scores", .sum), listAggregate("scores", .avg), listAggregate("scores", .min), listAggregate("scores", .max),
        listAggregate("dogs", .sum, "age"), listAggregate("dogs", .avg, "age"), listAggregate("dogs", .avg, "weight"),
        listAggregate("dogs", .max, "age"), listAggregate("dogs", .min, "weight"), listAggregate("fans", .count),
        listAggregate("fans", .max, "age"), listAggregate("dogs", .sum, "vet.rating"),
        listAggregate("bestFriend.dogs", .count), listAggregate("bestFriend.scores", .avg),
    ]

    /// Names for `AS`: none is a property or another item's text, so a SORT key that names
    /// one means that item alone.
    static let aliases = ["v0", "v1", "v2", "v3", "v4", "v5", "total", "mean"]

    /// Each spec at most once, some renamed with distinct aliases.
    mutating func items(_ specs: [SelectSpec], count: Int) -> [(RefSelectItem, SelectSpec)] {
        var pool = specs, names = Self.aliases
        var chosen: [(RefSelectItem, SelectSpec)] = []
        for _ in 0..<min(count, pool.count) {
            let spec = pool.remove(at: rng.int(pool.count))
            let alias = rng.chance(35) ? names.remove(at: rng.int(names.count)) : nil
            chosen.append((RefSelectItem(kind: spec.kind, alias: alias), spec))
        }
        return chosen
    }

    mutating func question() -> RefQuestion {
        switch rng.int(20) {
        case 0..<7: return projection()
        case 7..<14: return aggregateStatement()
        default: return group()
        }
    }

    /// A predicate most of the time; none sometimes, for the paths that read no predicate
    /// (index order, index ends, the count a tree keeps) and the bindings a rerun reuses.
    mutating func maybePredicate(onDogs: Bool = false) -> RefPredicate? {
        guard rng.chance(75) else { return nil }
        // A Dog's predicate is what a subquery over dogs tests: comparisons of its own paths.
        return onDogs ? predicate(depth: 2, paths: Self.dogPaths, inSubquery: true) : predicate(depth: 1)
    }

    mutating func projection() -> RefQuestion {
        let predicate = maybePredicate()
        let chosen = items(Self.personItems, count: 1 + rng.int(5))
        let nameable = chosen.filter { $0.1.sortable }.map(\.0)
        var sort: [(ReferenceStore.SortTarget, Bool)] = []
        for _ in 0..<rng.int(3) {
            if !nameable.isEmpty && rng.chance(40) {
                let item = rng.pick(nameable)
                // A list aggregate's text is no key path: SORT names it by its alias alone.
                if case .listAggregate = item.kind {
                    guard let alias = item.alias else { continue }
                    sort.append((.item(alias), rng.chance(50)))
                } else {
                    sort.append((.item(item.alias ?? item.text), rng.chance(50)))
                }
            } else {
                sort.append((.path(rng.pick(Self.sortPaths)), rng.chance(50)))
            }
        }
        let distinct = rng.chance(20) ? (0..<(1 + rng.int(2))).map { _ in rng.pick(Self.distinctPaths) } : []
        let offset = rng.chance(35) ? rng.int(40) : 0
        let limit = rng.chance(50) ? rng.int(25) : nil
        return RefQuestion(model: "Person", predicate: predicate,
                           form: .projection(items: chosen.map(\.0), sort: sort, distinct: distinct, offset: offset, limit: limit))
    }

    static let personSummed = ["age", "level", "score", "weight", "balance", "id", "bestFriend.age", "bestFriend.score"]
    static let personOrdered = personSummed + ["born", "bestFriend.born"]
    static let dogSummed = ["age", "weight", "vet.rating"]

    mutating func aggregateStatement() -> RefQuestion {
        let function = rng.pick([AggregateFunction.count, .sum, .avg, .min, .max])
        let onDogs = rng.chance(20)
        let model = onDogs ? "Dog" : "Person"
        let predicate = maybePredicate(onDogs: onDogs)
        let paths = onDogs ? Self.dogSummed : function == .sum || function == .avg ? Self.personSummed : Self.personOrdered
        let path = function == .count ? nil : rng.pick(paths).split(separator: ".").map(String.init)
        return RefQuestion(model: model, predicate: predicate, form: .aggregate(function, path))
    }

    static let personGroupKeys = ["active", "level", "nick", "age", "bestFriend.age", "born", "balance", "score", "weight",
                                  "bestFriend", "bestFriend.active"]
    static let personGroupAggregates: [(AggregateFunction, String?)] = [
        (.count, nil), (.sum, "age"), (.avg, "age"), (.avg, "score"), (.min, "born"), (.max, "born"), (.min, "balance"),
        (.sum, "balance"), (.avg, "balance"), (.avg, "weight"), (.max, "bestFriend.age"), (.sum, "level"), (.min, "score"),
        (.max, "weight"), (.sum, "score"),
    ]
    static let dogGroupKeys = ["vet", "vet.rating", "age", "weight", "vet.name"]
    static let dogGroupAggregates: [(AggregateFunction, String?)] = [
        (.count, nil), (.avg, "age"), (.sum, "weight"), (.max, "vet.rating"), (.min, "age"), (.avg, "weight"),
    ]

    mutating func group() -> RefQuestion {
        let onDogs = rng.chance(20)
        let predicate = maybePredicate(onDogs: onDogs)
        var keyPool = onDogs ? Self.dogGroupKeys : Self.personGroupKeys
        let keys = (0..<(1 + rng.int(rng.chance(20) ? 3 : 2))).map { _ in keyPool.remove(at: rng.int(keyPool.count)) }
            .map { $0.split(separator: ".").map(String.init) }
        var items: [RefSelectItem]?
        if rng.chance(70) {
            var specs = keys.filter { _ in rng.chance(70) }.map { SelectSpec(kind: .path($0), sortable: true) }
            specs += (onDogs ? Self.dogGroupAggregates : Self.personGroupAggregates).filter { _ in rng.chance(25) }.map {
                SelectSpec(kind: .groupAggregate($0.0, $0.1.map { $0.split(separator: ".").map(String.init) }), sortable: true)
            }
            if specs.isEmpty { specs = [SelectSpec(kind: .groupAggregate(.count, nil), sortable: true)] }
            items = self.items(specs, count: specs.count).map(\.0)
        }
        let shown = items ?? keys.map { RefSelectItem(kind: .path($0)) } + [RefSelectItem(kind: .groupAggregate(.count, nil))]
        let sort = (0..<rng.int(3)).map { _ in
            let item = rng.pick(shown)
            return (rng.chance(60) ? item.name : item.text, rng.chance(50))
        }
        let offset = rng.chance(30) ? rng.int(6) : 0
        let limit = rng.chance(40) ? rng.int(8) : nil
        return RefQuestion(model: onDogs ? "Dog" : "Person", predicate: predicate,
                           form: .group(keys: keys, items: items, sort: sort, offset: offset, limit: limit))
    }
}

extension RefQuestion {
    /// The form's name, for counting what a run asked.
    var formName: String {
        switch form {
        case .projection: "projection"
        case .aggregate(let function, _): String(function.rawValue.dropFirst())
        case .group: "group"
        }
    }
}
