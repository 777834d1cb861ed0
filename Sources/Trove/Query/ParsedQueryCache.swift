import TroveStorage

/// Parsed statements and predicates by their text (its bytes, `ExactText`), so a query run many times with different
/// arguments is parsed once: the part of a short query's cost that does not depend on the data.
/// A predicate also keeps the template of its last binding (`BoundQueryTemplate`), so that new
/// arguments against the same model are bound without binding the predicate again.
///
/// Bounded (least recently inserted entries go first) and shared by every store; errors are
/// never cached, so a bad statement reports its error each time.
final class ParsedQueryCache: @unchecked Sendable {
    static let shared = ParsedQueryCache(capacity: 256)

    /// Class payloads only: handing an entry out costs one retain.
    private enum Entry {
        case query(CachedQuery)
        case predicate(CachedPredicate)
        case aggregate(CachedAggregate)
    }

    /// An aggregate statement's parse and, once it ran without arguments, its binding to the
    /// layout it ran against: a repeated `min Car.hp` is neither parsed nor bound again, and
    /// one an index end answers (`IndexEnd`) reads only that.
    final class CachedAggregate {
        let statement: QueryAggregateStatement
        let bound: BoundAggregateStatement?
        let indexEnd: IndexEnd?
        let layout: StoreLayout?
        init(_ statement: QueryAggregateStatement, bound: BoundAggregateStatement? = nil, layout: StoreLayout? = nil) {
            self.statement = statement
            self.bound = bound
            indexEnd = bound.flatMap(IndexEnd.init)
            self.layout = layout
        }
    }
    /// A query's parse and, for one with SELECT or GROUP that ran without arguments, its
    /// binding to the layout it ran against.
    final class CachedQuery {
        let query: Query
        let bound: Binding?
        let layout: StoreLayout?
        init(_ query: Query, bound: Binding? = nil, layout: StoreLayout? = nil) {
            self.query = query
            self.bound = bound
            self.layout = layout
        }
    }

    /// What a statement run without arguments keeps of its binding to a layout.
    enum Binding {
        case aggregate(CachedAggregate)
        case projected(BoundProjectedQuery)
        /// A query with GROUP: a repeated `Car GROUP(origin) SELECT(origin, @avg.mpg)` is
        /// neither parsed nor bound again.
        case grouped(BoundGrouping, Query, ModelLayout, predicate: BoundPredicate?)
    }

    /// A predicate's parse and its last template: a class, so that a cache hit costs one
    /// retain rather than one per field.
    final class CachedPredicate {
        let parsed: QueryPredicate
        /// Its `$n`, read once: a rerun with arguments checks their count without a walk.
        let parameters: QueryParameters
        let template: BoundQueryTemplate?

        init(parsed: QueryPredicate, parameters: QueryParameters, template: BoundQueryTemplate?) {
            self.parsed = parsed
            self.parameters = parameters
            self.template = template
        }
    }

    /// By the text's bytes: two spellings of one statement can mean different things.
    private struct Key: Hashable {
        var text: ExactText
        var isPredicate: Bool

        init(text: String, isPredicate: Bool) {
            self.text = ExactText(text)
            self.isPredicate = isPredicate
        }
    }

    // The state below is read and written only under `lock`, which already excludes
    // overlapping access: unchecked exclusivity spares every query's lookup the runtime check.
    private let lock = Lock()
    private let capacity: Int
    @exclusivity(unchecked) private var entries: [Key: Entry] = [:]
    @exclusivity(unchecked) private var order: [Key] = []
    @exclusivity(unchecked) private var next = 0
    /// The last entries found, checked before `entries`; emptied whenever `entries` changes.
    @exclusivity(unchecked) private var recentKeys: [Key] = []
    @exclusivity(unchecked) private var recentEntries: [Entry] = []
    @exclusivity(unchecked) private var nextRecent = 0
    private static let recentCapacity = 4

    init(capacity: Int) {
        self.capacity = capacity
        order.reserveCapacity(capacity)
    }

    /// The parsed form of the statement `text`, parsed now if it is not cached.
    func query(_ text: String) throws(QueryError) -> Query {
        let key = Key(text: text, isPredicate: false)
        if case .query(let q) = cached(key) { return q.query }
        let q = try QueryParser.parseQuery(text)
        insert(.query(CachedQuery(q)), for: key)
        return q
    }

    /// The parsed form of any statement `text` (a query or an aggregate statement).
    func statement(_ text: String) throws(QueryError) -> QueryStatement {
        let key = Key(text: text, isPredicate: false)
        switch cached(key) {
        case .query(let q)?: return .query(q.query)
        case .aggregate(let a)?: return .aggregate(a.statement)
        default: break
        }
        let statement = try QueryParser.parseStatement(text)
        switch statement {
        case .query(let q): insert(.query(CachedQuery(q)), for: key)
        case .aggregate(let a): insert(.aggregate(CachedAggregate(a)), for: key)
        }
        return statement
    }

    /// The statement `text` bound to `layout` without arguments, if it is cached: an aggregate
    /// statement, or a query with SELECT or GROUP.
    func binding(_ text: String, layout: StoreLayout) -> Binding? {
        switch cached(Key(text: text, isPredicate: false)) {
        case .aggregate(let a)? where a.layout === layout && a.bound != nil: .aggregate(a)
        case .query(let q)? where q.layout === layout: q.bound
        default: nil
        }
    }

    /// Keeps `bound` (`.projected` or `.grouped`), the query `text` bound to `layout` without
    /// arguments.
    func keep(_ bound: Binding, of query: Query, for text: String, layout: StoreLayout) {
        replace(.query(CachedQuery(query, bound: bound, layout: layout)), for: Key(text: text, isPredicate: false))
    }

    /// Keeps `bound`, the aggregate statement `text` bound to `layout` without arguments.
    func keep(_ bound: BoundAggregateStatement, of statement: QueryAggregateStatement, for text: String, layout: StoreLayout) {
        replace(.aggregate(CachedAggregate(statement, bound: bound, layout: layout)), for: Key(text: text, isPredicate: false))
    }

    /// Puts `entry` in the place of what `key` held.
    private func replace(_ entry: Entry, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        if entries[key] == nil {
            append(key)
        }
        entries[key] = entry
        forgetRecent()
    }

    /// The predicate `text` parsed and bound to `model` with `arguments`.
    func bind(_ text: String, to model: ModelLayout, layout: StoreLayout,
              arguments: [Value]) throws -> (parsed: QueryPredicate, bound: BoundPredicate) {
        let (cached, bound) = try self.template(text, to: model, layout: layout, arguments: arguments)
        if let bound { return (cached.parsed, bound) }
        return (cached.parsed, try cached.template!.bind(QueryBinder(layout: layout, arguments: arguments, statement: text)))
    }

    /// The predicate `text` parsed, with its template for `model`, once `arguments` are
    /// checked to be no more than it uses (`QueryParameters`). When the template is cached,
    /// the predicate comes unbound, for the caller to bind to the arguments (or answer from
    /// the template alone); otherwise it is bound now, its template cached, and comes bound.
    func template(_ text: String, to model: ModelLayout, layout: StoreLayout,
                  arguments: [Value]) throws -> (cached: CachedPredicate, bound: BoundPredicate?) {
        let key = Key(text: text, isPredicate: true)
        let entry = cached(key)
        var parsed: (predicate: QueryPredicate, parameters: QueryParameters)?
        if case .predicate(let c)? = entry {
            try c.parameters.check(arguments, statement: text)
            if let template = c.template, template.layout === layout, template.model === model { return (c, nil) }
            parsed = (c.parsed, c.parameters)
        }
        let predicate = try parsed?.predicate ?? QueryParser.parsePredicate(text)
        let parameters = parsed?.parameters ?? QueryParameters(predicate)
        if parsed == nil { try parameters.check(arguments, statement: text) }
        var binder = QueryBinder(layout: layout, arguments: arguments, statement: text)
        let recorder = BindingRecorder()
        binder.recorder = recorder
        let bound = try binder.bind(predicate, to: model)
        let c = CachedPredicate(parsed: predicate, parameters: parameters,
                                template: BoundQueryTemplate(bound, recorder: recorder, layout: layout, model: model))
        lock.lock()
        defer { lock.unlock() }
        if entries[key] == nil {
            append(key)
        }
        entries[key] = .predicate(c)
        forgetRecent()
        return (c, bound)
    }

    private func cached(_ key: Key) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        // A query run in a loop hits the same few texts: comparing them costs less than
        // hashing one (identical strings compare by their storage).
        for i in recentKeys.indices where recentKeys[i].isPredicate == key.isPredicate && recentKeys[i].text == key.text {
            return recentEntries[i]
        }
        guard let entry = entries[key] else { return nil }
        if recentKeys.count < Self.recentCapacity {
            recentKeys.append(key)
            recentEntries.append(entry)
        } else {
            recentKeys[nextRecent] = key
            recentEntries[nextRecent] = entry
            nextRecent = (nextRecent + 1) % Self.recentCapacity
        }
        return entry
    }

    private func forgetRecent() {
        recentKeys.removeAll(keepingCapacity: true)
        recentEntries.removeAll(keepingCapacity: true)
        nextRecent = 0
    }

    private func insert(_ entry: Entry, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        guard entries[key] == nil else { return }
        append(key)
        entries[key] = entry
        forgetRecent()
    }

    /// Makes room for `key` in the order of insertion (the caller holds the lock).
    private func append(_ key: Key) {
        if order.count < capacity {
            order.append(key)
        } else {
            entries[order[next]] = nil
            order[next] = key
            next = (next + 1) % capacity
        }
    }
}
