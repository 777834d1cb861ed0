import Trove

/// Translated statements kept for running again: a query run again with other arguments (a
/// lookup in a loop, a page after a page) reuses its SQL and makes only the parameters anew,
/// so that what it costs on this side is close to what the same prepared statement costs
/// through libpq.
///
/// A translation is kept by the statement's text (its bytes) and the shape of its arguments (which are
/// null, how many elements each list has), the only things about the arguments its SQL
/// depends on; each parameter made from an argument records which one (`ParameterSource`),
/// and is made again from the new argument by the translator's own rules. `Reading` is what
/// else a translation gives for reading its answer (a projection's columns, an aggregate's
/// type), kept with it.
struct PostgresTranslations<Reading> {
    /// What a statement's text stands for.
    enum Statement: Hashable {
        /// A query's objects (`objects(_:arguments:)`).
        case objects
        /// The number of the objects of a model (matching a predicate when `filtered`).
        case count(model: String, filtered: Bool)
        /// A query with SELECT or GROUP: rows.
        case rows
        /// An aggregate statement: one value.
        case aggregate
    }

    private struct Key: Hashable {
        var statement: Statement
        /// By its bytes: two spellings of a statement can translate differently.
        var text: ExactText
        var count: Int
        /// Empty when every argument is a value that is not null (a lookup's): no array is made.
        var shape: [Int]
    }

    private struct Entry {
        var sql: String
        var parameters: SQLParameters
        var reading: Reading
        /// How many arguments the statement uses (`QueryParameters`).
        var uses: Int
    }

    private var entries: [Key: Entry] = [:]
    /// A full cache is emptied rather than ordered: a working set of statements is far smaller.
    private static var limit: Int { 256 }

    /// Forgets every translation (after a schema change).
    mutating func removeAll() { entries.removeAll() }

    /// The SQL and parameters of `statement` (`text` with `arguments`), from the cache or from
    /// `translate`, which also gives the predicate that reads the arguments.
    mutating func translation(_ statement: Statement, _ text: String, arguments: [Value],
                              translate: () throws -> (String, SQLParameters, Reading, QueryPredicate?)) throws -> (sql: String, parameters: [String?], reading: Reading) {
        let key = Key(statement: statement, text: ExactText(text), count: arguments.count, shape: Self.shape(arguments))
        // Arguments that do not fit a kept translation are translated anew, so that they are
        // refused as a first run refuses them. So are more arguments than the statement uses:
        // whether they are allowed depends on the caller's scope
        // (`QueryParameters.allowingExtraArguments`), not on the statement, so the translation's
        // check decides it on every call.
        if let entry = entries[key], arguments.count <= entry.uses, let values = Self.parameters(entry.parameters, arguments: arguments) {
            return (entry.sql, values, entry.reading)
        }
        let (sql, parameters, reading, predicate) = try translate()
        if parameters.isReusable {
            if entries.count >= Self.limit { entries.removeAll() }
            entries[key] = Entry(sql: sql, parameters: parameters, reading: reading, uses: QueryParameters(predicate).count)
        }
        return (sql, parameters.values, reading)
    }

    /// What the SQL of a statement depends on in its arguments: each one's count, null or not,
    /// and for a list, its elements' nulls.
    private static func shape(_ arguments: [Value]) -> [Int] {
        guard arguments.contains(where: { if case .null = $0 { true } else if case .list = $0 { true } else { false } }) else { return [] }
        var shape: [Int] = []
        shape.reserveCapacity(arguments.count)
        for argument in arguments {
            switch argument {
            case .null: shape.append(-1)
            case .list(let items):
                shape.append(items.count)
                for item in items { shape.append(item.isNull ? -1 : -2) }
            default: shape.append(-2)
            }
        }
        return shape
    }

    /// The parameters of a kept translation for `arguments`, made as the translator makes
    /// them; nil when one of them is no longer what the SQL was made for (an argument that
    /// becomes null) or is refused: translated anew, it is refused at its place.
    private static func parameters(_ kept: SQLParameters, arguments: [Value]) -> [String?]? {
        var values = kept.values
        for (slot, source) in kept.sources.enumerated() {
            guard case .argument(let index, let element, let type, let options, let isPattern) = source else { continue }
            var argument = arguments[index]
            if let element {
                guard case .list(let items) = argument else { return nil }
                argument = items[element]
            }
            // A number beyond `type` is bound as another type: not what the kept SQL casts to.
            guard let value = try? PostgresQueryTranslator.argument(argument, as: type, index: index),
                  PostgresQueryTranslator.boundType(value, type) == type else { return nil }
            if isPattern {
                guard case .string(let pattern) = value else { return nil }
                values[slot] = PostgresQueryTranslator.likePattern(pattern, options: options)
            } else {
                guard !value.isNull, let parameter = try? PostgresValues.parameter(PostgresQueryTranslator.folded(value, options), type: type) else { return nil }
                values[slot] = parameter.0
            }
        }
        return values
    }
}

extension PostgresTranslations where Reading == Void {
    /// The SQL and parameters of `statement` (`text` with `arguments`), from the cache or from
    /// `translate`.
    mutating func sql(_ statement: Statement, _ text: String, arguments: [Value],
                      translate: () throws -> (String, SQLParameters, QueryPredicate?)) throws -> (sql: String, parameters: [String?]) {
        let (sql, parameters, _) = try translation(statement, text, arguments: arguments) {
            let (sql, parameters, predicate) = try translate()
            return (sql, parameters, (), predicate)
        }
        return (sql, parameters)
    }
}
