import TroveStorage

/// A write transaction: reads see its own writes; everything applies at commit or not at all.
/// Get one from ``Store/write(_:)``.
public final class Transaction: Snapshot {
    let writeTx: TroveStorage.WriteTransaction
    /// Changes so far, by model name.
    public var changes: [String: ModelChanges] {
        var out: [String: ModelChanges] = [:]
        for (id, log) in logs.enumerated() {
            guard let log, let m = layout.byID[id] else { continue }
            out[m.name] = log.changes(of: m)
        }
        return out
    }
    /// Change logs by model id (nil: the model was not written).
    private var logs: [ModelChangeLog?] = []
    /// The next object key per model id (0: not read yet).
    private var nextKeys: [UInt64] = []
    /// Nested objects written whole (inserted, or updated to the values given), by model id
    /// and primary key as given, by its bytes as an index finds it: the same values given again
    /// change nothing, so a write that links many objects to one (each user to its team)
    /// writes it once. Any write to a model forgets its objects here. By model id, as
    /// ``logs``: each write checks its model's entry, which an index finds without hashing.
    private var nestedWrites: [[ExactKey: NestedWrite]] = []

    private struct NestedWrite {
        var key: UInt64
        var values: [String: Value]
    }

    /// Enough for the objects a loop links to; beyond it a nested object is compared each time.
    private static let nestedWriteCapacity = 4096

    /// The Swift type whose whole-value writes ``ValueTransaction`` checked last, with the
    /// model and the answer: a loop writing values of one type asks again without a lock.
    @exclusivity(unchecked) var lastWholeWrite: (type: ObjectIdentifier, model: ModelLayout, whole: Bool)?
    /// The same for the nested objects of those writes (each linked class instance).
    @exclusivity(unchecked) var lastNestedWholeWrite: (type: ObjectIdentifier, model: ModelLayout, whole: Bool)?

    /// What the typed layer keeps between the writes of this transaction (its bookkeeping of
    /// linked class instances), so that each write reuses it rather than making its own.
    package var typedWriteState: AnyObject?

    /// Whether it came from ``Store/beginWrite()`` and is committed by hand.
    var isExplicit = false

    /// What to run if the transaction is rolled back or its commit fails, the latest first:
    /// a client that joined it (``TroveRepository``'s save) then takes back what it recorded.
    private var undoHandlers: [() -> Void] = []

    /// Runs `handler` if the transaction ends without committing.
    func whenUndone(_ handler: @escaping () -> Void) { undoHandlers.append(handler) }

    /// Ends the handlers of ``whenUndone(_:)``: run when the transaction was `undone`, else dropped.
    func endUndoHandlers(undone: Bool) {
        let handlers = undoHandlers
        undoHandlers = []
        if undone { for handler in handlers.reversed() { handler() } }
    }

    init(store: Store, transaction: TroveStorage.WriteTransaction, layout: StoreLayout? = nil) {
        writeTx = transaction
        super.init(store: store, transaction: transaction, layout: layout)
    }

    func writableTree(_ name: String) throws -> Tree {
        if let t = try tree(name) { return t }
        forgetTree(name)
        let t = try writeTx.createTree(named: name)
        _ = try tree(name)
        return t
    }

    /// ``writableTree(_:)`` through the snapshot's slot cache.
    @inline(__always)
    func writableTree(_ name: String, slot: Int) throws -> Tree {
        if let t = try tree(name, slot: slot) { return t }
        return try writableTree(name)
    }

    /// Calls `body` with the change log of `m`, created on first use.
    @inline(__always)
    private func log<R>(_ m: ModelLayout, _ body: (inout ModelChangeLog) -> R) -> R {
        if m.id < nestedWrites.count, !nestedWrites[m.id].isEmpty { nestedWrites[m.id] = [:] }
        if m.id >= logs.count { logs.append(contentsOf: repeatElement(nil, count: m.id + 1 - logs.count)) }
        if logs[m.id] == nil { logs[m.id] = ModelChangeLog() }
        return body(&logs[m.id]!)
    }

    private func wasInserted(_ m: ModelLayout, _ key: UInt64) -> Bool {
        m.id < logs.count && (logs[m.id]?.wasInserted(key) ?? false)
    }

    // MARK: Public writes

    /// Commits a transaction from ``Store/beginWrite()``: everything it wrote applies at once.
    public func commit() throws { try store.finish(self, commit: true) }

    /// Discards a transaction from ``Store/beginWrite()``: nothing it wrote applies.
    public func rollback() throws { try store.finish(self, commit: false) }


    /// Inserts a new object. Omitted properties get their defaults; a primary key that exists
    /// already is an error (use ``upsert(_:_:)`` to update instead).
    @discardableResult
    public func insert(_ model: String, _ values: [String: Value]) throws -> DynamicObject {
        try checkLive()
        let m = try self.model(model)
        let (key, record) = try insertRecord(m, values)
        // The record just written, rather than reading it back.
        return DynamicObject(snapshot: self, model: m, key: key, record: record)
    }

    /// Creates the object, or updates only the given properties of the existing one, reporting
    /// which of them changed.
    @discardableResult
    public func upsert(_ model: String, _ values: [String: Value]) throws -> UpsertResult {
        try checkLive()
        let m = try self.model(model)
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        guard let pkValue = values[pk.name], !pkValue.isNull || pk.isOptional else { throw StoreError.missingPrimaryKey(model: m.name) }
        if let key = try objectKey(m, primaryKey: pkValue) {
            let changed = try updateObject(m, key, values)
            return UpsertResult(object: try object(m, key: key)!, created: false, changedProperties: changed)
        }
        let (key, record) = try insertRecord(m, values)
        return UpsertResult(object: DynamicObject(snapshot: self, model: m, key: key, record: record),
                            created: true, changedProperties: values.keys.sorted())
    }

    /// Sets the given properties of the object with this primary key; returns the names of
    /// those whose value changed. Throws if there is no such object.
    @discardableResult
    public func update(_ model: String, primaryKey: Value, _ values: [String: Value]) throws -> [String] {
        try update(model, primaryKey: primaryKey, given: values)
    }

    /// ``update(_:primaryKey:_:)`` of the one property `name`, with no dictionary built: what a
    /// typed partial update writes when its closure changed one property (a dictionary's first
    /// entry costs it about 650 instructions, 6% of the update).
    package func update(_ model: String, primaryKey: Value, property name: String, _ value: Value) throws {
        _ = try update(model, primaryKey: primaryKey, given: CollectionOfOne((key: name, value: value)))
    }

    /// Throws ``StoreError/objectNotFound(model:primaryKey:)`` when no object of `model` has
    /// this primary key: what an update checks before it writes what its values link to.
    package func requireObject(_ model: String, primaryKey: Value) throws {
        try checkLive()
        let m = try self.model(model)
        guard try objectKey(m, primaryKey: primaryKey) != nil else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: primaryKey.description)
        }
    }

    private func update(_ model: String, primaryKey: Value, given: some Collection<(key: String, value: Value)>) throws -> [String] {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey) else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: primaryKey.description)
        }
        return try updateObject(m, key, given)
    }

    /// Sets the given properties of a stored object.
    @discardableResult
    public func update(_ object: ObjectReference, _ values: [String: Value]) throws -> [String] {
        try checkLive()
        let m = try model(object.model)
        guard try withRecord(m, object.key, { _ in true }) != nil else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: object.description)
        }
        return try updateObject(m, object.key, values)
    }

    /// The object with this primary key, created with default values if it does not exist.
    public func getOrCreate(_ model: String, primaryKey: Value) throws -> DynamicObject {
        try checkLive()
        let m = try self.model(model)
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        if let key = try objectKey(m, primaryKey: primaryKey) { return try object(m, key: key)! }
        let (key, record) = try insertRecord(m, [pk.name: primaryKey])
        return DynamicObject(snapshot: self, model: m, key: key, record: record)
    }

    /// The object an insert of `given` would write, built as the insert builds it but not
    /// written, so that a caller can check how it reads before inserting it. Its key is 0,
    /// which no object has, and its links are left null or empty: resolving a link given as a
    /// nested object would write that object.
    package func unwrittenObject(_ model: String, _ given: [String: Value]) throws -> DynamicObject {
        let m = try self.model(model)
        let values = try newObjectValues(m, given, depth: 0, resolvingLinks: false)
        return DynamicObject(snapshot: self, model: m, key: 0, record: try RecordCodec.encode(values, layout: m))
    }

    /// Deletes the object with this primary key; false if there was none. Links to it become
    /// null and it leaves every list that held it.
    @discardableResult
    public func delete(_ model: String, primaryKey: Value) throws -> Bool {
        try checkLive()
        let m = try self.model(model)
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        let coerced = try Coercion.stored(primaryKey, for: pk)
        guard let t = try primaryKeyTree(m) else { return false }
        // The primary-key entry goes first, read as it is removed: it names the object, and
        // finding it once serves the lookup and the removal.
        var key: UInt64?
        _ = try IndexKey.withEncoded(coerced, as: pk.type) { kb in
            try writeTx.delete(t, raw: kb, reading: { v in
                key = IndexKey.objectKey(value: v)
            })
        }
        guard let key else { return false }
        try deleteObject(m, key, primaryKeyRemoved: true)
        return true
    }

    /// Deletes a stored object; false if it was already gone.
    @discardableResult
    public func delete(_ object: ObjectReference) throws -> Bool {
        try checkLive()
        let m = try model(object.model)
        return try deleteObject(m, object.key)
    }

    /// Deletes every object of `model`; returns how many.
    @discardableResult
    public func deleteAll(_ model: String) throws -> Int {
        try checkLive()
        let m = try self.model(model)
        let keys = try allKeys(m)
        for k in keys { try deleteObject(m, k) }
        return keys.count
    }

    // MARK: Object writes

    func values(of m: ModelLayout, key: UInt64) throws -> [Value]? {
        try withRecord(m, key) { r in
            var out = [Value](repeating: .null, count: m.byID.count)
            for p in m.storedProperties { out[p.id] = try r.value(of: p) }
            return out
        }
    }

    /// The key the next insert into `m` gets (an insert takes it by advancing `nextKeys`).
    private func peekKey(_ m: ModelLayout) throws -> UInt64 {
        if m.id < nextKeys.count, nextKeys[m.id] != 0 { return nextKeys[m.id] }
        var next: UInt64 = 1
        if let t = try objectsTree(m) {
            let c = try writeTx.cursor(t)
            if try c.last() { next = try c.withKey { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) } + 1 }
        }
        if m.id >= nextKeys.count { nextKeys.append(contentsOf: repeatElement(0, count: m.id + 1 - nextKeys.count)) }
        nextKeys[m.id] = next
        return next
    }

    /// Checks and converts a given value for property `p`, resolving links to object keys.
    func resolve(_ v: Value, for p: PropertyLayout, depth: Int) throws -> Value {
        if p.isLinkingObjects { throw StoreError.readOnlyProperty(model: p.model.name, property: p.name) }
        if p.isList {
            if case .null = v { return .list([]) }
            guard case .list(let items) = v else { throw StoreError.typeMismatch(property: p.name, expected: "a list", found: v.kindDescription) }
            if p.isLinkList {
                return .list(try items.enumerated().map { position, item in
                    let r = try resolveLink(item, for: p, depth: depth, element: position + 1)
                    guard case .reference = r else { throw StoreError.nullNotAllowed(model: p.model.name, property: p.name) }
                    return r
                })
            }
            return .list(try items.enumerated().map { try Coercion.stored($1, for: p, element: $0 + 1) })
        }
        if p.isLink { return try resolveLink(v, for: p, depth: depth) }
        return try Coercion.stored(v, for: p)
    }

    /// `v` as a link of `p` (or of element `element`, from 1, of its list).
    private func resolveLink(_ v: Value, for p: PropertyLayout, depth: Int, element: Int? = nil) throws -> Value {
        guard let target = p.target else { return .null }
        switch v {
        case .null: return .null
        case .reference(let r):
            guard r.model == target.name else {
                throw StoreError.typeMismatch(property: p.name, expected: "an object of \(target.name)", found: "an object of \(r.model)")
            }
            guard try withRecord(target, r.key, { _ in true }) != nil else {
                throw StoreError.linkTargetNotFound(property: p.name, model: target.name, primaryKey: r.description)
            }
            return v
        case .object(let dict):
            return .reference(ObjectReference(model: target.name, key: try nestedObjectKey(target, dict, depth: depth)))
        default:
            guard target.primaryKey != nil else {
                throw StoreError.typeMismatch(property: p.name, expected: "an object of \(target.name)", found: v.kindDescription)
            }
            // A key written by a nested write of this transaction, its model unchanged since.
            if target.id < nestedWrites.count, let written = nestedWrites[target.id][ExactKey(v)] {
                return .reference(ObjectReference(model: target.name, key: written.key))
            }
            let found: UInt64?
            do { found = try objectKey(target, primaryKey: v) } catch StoreError.invalidValue(let error) where element != nil {
                // An element of the wrong type is named by its position in the list.
                throw StoreError.invalidValue(CoercionError(property: p.name, type: error.type, found: error.found, element: element))
            }
            guard let key = found else {
                throw StoreError.linkTargetNotFound(property: p.name, model: target.name, primaryKey: v.description)
            }
            return .reference(ObjectReference(model: target.name, key: key))
        }
    }

    /// Writes `values` as a nested object of `model` met at link depth `depth`, as a link given
    /// a nested object writes it: an upsert by its primary key (skipped when the same values
    /// were written so already), nothing read back. A typed write's linked class instance.
    package func writeNested(_ model: String, _ values: [String: Value], depth: Int) throws -> ObjectReference {
        try checkLive()
        let m = try self.model(model)
        return ObjectReference(model: m.name, key: try nestedObjectKey(m, values, depth: depth))
    }

    /// Whether the nested object `values(model)` of `model` with this primary key was written
    /// so in this transaction, its model unchanged since: a write of it again would write
    /// nothing. `values` is called only when the transaction wrote that primary key.
    func wroteNested(_ model: String, primaryKey: Value, _ values: (ModelLayout) -> [String: Value]) -> Bool {
        // A transaction's first nested write finds none, with no model looked up.
        guard !nestedWrites.isEmpty, let m = try? self.model(model) else { return false }
        return memoizedNestedKey(m, primaryKey, values) != nil
    }

    /// The key of the nested object of `m` with primary key `pk` that this transaction wrote
    /// with `values(m)`, its model unchanged since; nil when a write of it would write anything.
    private func memoizedNestedKey(_ m: ModelLayout, _ pk: Value, _ values: (ModelLayout) -> [String: Value]) -> UInt64? {
        guard let pkName = m.primaryKey?.name, m.id < nestedWrites.count, let written = nestedWrites[m.id][ExactKey(pk)],
              Transaction.same(written.values, values(m), besides: pkName) else { return nil }
        return written.key
    }

    /// The key of the object a nested object `dict` of `target` at link depth `depth` is written as.
    private func nestedObjectKey(_ target: ModelLayout, _ dict: [String: Value], depth: Int) throws -> UInt64 {
        guard depth < 32 else { throw StoreError.invalidArgument("objects nested more than 32 levels deep") }
        guard let pk = target.primaryKey, let pkValue = dict[pk.name] else {
            return try insertObject(target, dict, depth: depth + 1)
        }
        if let written = memoizedNestedKey(target, pkValue, { _ in dict }) { return written }
        let key: UInt64
        if let existing = try objectKey(target, primaryKey: pkValue) {
            key = existing
            _ = try updateObject(target, key, dict, depth: depth + 1)
        } else {
            key = try insertObject(target, dict, depth: depth + 1)
        }
        // Only values that write nothing themselves: a nested object of its own may be
        // changed by a later write of its model, which forgets only that model's entries.
        if !dict.values.contains(where: Transaction.mayWrite) {
            if target.id >= nestedWrites.count { nestedWrites.append(contentsOf: repeatElement([:], count: target.id + 1 - nestedWrites.count)) }
            if nestedWrites[target.id].count < Transaction.nestedWriteCapacity {
                nestedWrites[target.id][ExactKey(pkValue)] = NestedWrite(key: key, values: dict)
            }
        }
        return key
    }

    /// Whether two nested objects' values are the same, `key` aside: the caller has found
    /// them equal there (their primary key), so its value is not looked up again.
    private static func same(_ a: [String: Value], _ b: [String: Value], besides key: String) -> Bool {
        guard a.count == b.count else { return false }
        for (name, v) in b where name != key {
            guard let stored = a[name], stored.isStoredSame(as: v) else { return false }
        }
        return true
    }

    @discardableResult
    func insertObject(_ m: ModelLayout, _ given: [String: Value], depth: Int = 0) throws -> UInt64 {
        try insertRecord(m, given, depth: depth).key
    }

    /// Inserts an object; returns its key and the record written (which ``insert(_:_:)``
    /// hands to the object it returns instead of reading it back).
    func insertRecord(_ m: ModelLayout, _ given: [String: Value], depth: Int = 0) throws -> (key: UInt64, record: [UInt8]) {
        let values = try newObjectValues(m, given, depth: depth, resolvingLinks: true)
        // Encoded before any tree is written, so that a value it rejects leaves nothing behind.
        let record = try RecordCodec.encode(values, layout: m)
        let key = try peekKey(m)
        if let pk = m.primaryKey {
            // The uniqueness check and the primary-key entry in one descent.
            let t = try writableTree(m.primaryKeyTree, slot: m.primaryKeyTreeSlot)
            let added = try IndexKey.withEncoded(values[pk.id], as: pk.type) { k in
                try IndexKey.withObjectKeyValue(key) { try writeTx.putIfAbsent(t, raw: k, $0) }
            }
            guard added else { throw StoreError.duplicatePrimaryKey(model: m.name, value: values[pk.id].description) }
        }
        nextKeys[m.id] = key + 1
        for p in m.indexedProperties {
            let t = try writableTree(p.indexTreeName, slot: p.indexTreeSlot)
            try IndexKey.withEncoded(values[p.id], as: p.type, suffix: key) { try writeTx.put(t, raw: $0, UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
        for p in m.linkProperties {
            try updateBacklinks(p, key, old: nil, new: values[p.id])
        }
        try putRecord(m, key, record)
        log(m) { $0.recordInsert(key) }
        return (key, record)
    }

    /// The property values of a new object of `m` given `given`, by property id: each stored
    /// property's default, and over it each given value checked and converted (``resolve(_:for:depth:)``).
    /// Links are resolved only when `resolvingLinks` is set; otherwise they keep their default.
    /// The one home of what an insert writes, shared with ``unwrittenObject(_:_:)``.
    private func newObjectValues(_ m: ModelLayout, _ given: [String: Value], depth: Int, resolvingLinks: Bool) throws -> [Value] {
        var values = [Value](repeating: .null, count: m.byID.count)
        for p in m.storedProperties { values[p.id] = p.defaultValue }
        for (name, v) in given {
            let p = try property(m, name)
            if !resolvingLinks, p.isLink || p.isLinkList { continue }
            values[p.id] = try resolve(v, for: p, depth: depth)
        }
        if let pk = m.primaryKey, given[pk.name] == nil { throw StoreError.missingPrimaryKey(model: m.name) }
        return values
    }

    private func putRecord(_ m: ModelLayout, _ key: UInt64, _ record: [UInt8]) throws {
        let t = try writableTree(m.objectsTree, slot: m.objectsTreeSlot)
        try withUnsafeBytes(of: key.bigEndian) { kb in
            try record.withUnsafeBytes { try writeTx.put(t, raw: kb, $0) }
        }
    }

    /// Sets the given properties of object `key`; returns the names of those that changed, in
    /// name order. Only changed properties are encoded, indexed and relinked: the other slots
    /// of the record are copied as they are.
    func updateObject(_ m: ModelLayout, _ key: UInt64, _ given: some Collection<(key: String, value: Value)>, depth: Int = 0) throws -> [String] {
        if !given.contains(where: { Transaction.mayWrite($0.value) }) {
            return try updateInPlace(m, key, given, depth: depth)
        }
        // A copy: resolving a nested object writes, which may move the stored record.
        guard let oldRecord = try withRecord(m, key, { [UInt8](UnsafeRawBufferPointer(start: $0.base, count: $0.count)) }) else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: "#\(key)")
        }
        var changed: [String] = []
        var updates: [RecordCodec.SlotUpdate] = []
        try oldRecord.withUnsafeBytes { buffer in
            let old = try RecordView(buffer)
            try compare(m, old, given, depth: depth, &updates, &changed)
            guard !updates.isEmpty else { return }
            let record = try RecordCodec.encode(updating: old, with: updates, layout: m)
            let mask = try updateIndexesAndBacklinks(key, updates)
            try putRecord(m, key, record)
            log(m) { $0.recordModified(key, mask) }
        }
        return changed
    }

    /// Resolves the given values and compares them with the record's: the slots to rewrite
    /// and the names that changed, in name order (as they are reported, and as nested writes
    /// happen). A parameter rather than captured state, which would be boxed on the heap.
    private func compare(_ m: ModelLayout, _ old: RecordView, _ given: some Collection<(key: String, value: Value)>, depth: Int,
                         _ updates: inout [RecordCodec.SlotUpdate], _ changed: inout [String]) throws {
        func visit(_ name: String, _ v: Value, _ updates: inout [RecordCodec.SlotUpdate], _ changed: inout [String]) throws {
            let p = try property(m, name)
            let resolved = try resolve(v, for: p, depth: depth)
            let before = try old.value(of: p)
            if p === m.primaryKey {
                if !resolved.isStoredSame(as: before) { throw StoreError.primaryKeyChanged(model: m.name, from: before, to: resolved) }
                return
            }
            if !resolved.isStoredSame(as: before) {
                updates.append(RecordCodec.SlotUpdate(property: p, old: before, new: resolved))
                changed.append(name)
            }
        }
        if given.count == 1 {
            for (name, v) in given { try visit(name, v, &updates, &changed) }
        } else {
            for (name, v) in given.sorted(by: { $0.key < $1.key }) { try visit(name, v, &updates, &changed) }
        }
    }

    /// Whether resolving `v` may write (a nested object is inserted or updated).
    private static func mayWrite(_ v: Value) -> Bool {
        switch v {
        case .object: true
        case .list(let items): items.contains { if case .object = $0 { true } else { false } }
        default: false
        }
    }

    /// ``updateObject(_:_:_:depth:)`` when resolving the given values only reads: the record
    /// is read, compared and rewritten with one search of the objects tree (in place when
    /// its size stays), then the changed properties' index entries and backlinks follow.
    private func updateInPlace(_ m: ModelLayout, _ key: UInt64, _ given: some Collection<(key: String, value: Value)>, depth: Int) throws -> [String] {
        var changed: [String] = []
        var updates: [RecordCodec.SlotUpdate] = []
        let found = try objectsTree(m).map { t in
            try withUnsafeBytes(of: key.bigEndian) { kb in
                try writeTx.replace(t, raw: kb) { buffer -> [UInt8]? in
                    let old = try RecordView(buffer)
                    try compare(m, old, given, depth: depth, &updates, &changed)
                    return updates.isEmpty ? nil : try RecordCodec.encode(updating: old, with: updates, layout: m)
                }
            }
        } ?? false
        guard found else { throw StoreError.objectNotFound(model: m.name, primaryKey: "#\(key)") }
        guard !updates.isEmpty else { return changed }
        let mask = try updateIndexesAndBacklinks(key, updates)
        log(m) { $0.recordModified(key, mask) }
        return changed
    }

    /// Deletes object `key`: its record, the links to it, then its index entries and backlinks
    /// (the primary-key entry unless the caller removed it already). Only the properties that
    /// own entries elsewhere (primary key, indexed, links) are decoded.
    @discardableResult
    func deleteObject(_ m: ModelLayout, _ key: UInt64, primaryKeyRemoved: Bool = false) throws -> Bool {
        // The record goes first, read as it is removed (one search); its index entries and
        // backlinks follow, after the links pointing at it.
        guard let objects = try objectsTree(m) else { return false }
        var removed: [UInt8]?
        _ = try withUnsafeBytes(of: key.bigEndian) { kb in
            try writeTx.delete(objects, raw: kb, reading: { removed = [UInt8]($0) })
        }
        guard let record = removed else { return false }
        // Incoming links first: null them or drop the object from lists.
        for source in layout.incoming[m.id] ?? [] {
            for sourceKey in try backlinks(to: m, key: key, from: source) {
                if source.model === m && sourceKey == key { continue }
                guard var sv = try values(of: source.model, key: sourceKey) else { continue }
                let before = sv
                if source.isLink {
                    sv[source.id] = .null
                } else if case .list(let items) = sv[source.id] {
                    sv[source.id] = .list(items.filter { if case .reference(let r) = $0 { return r.key != key } else { return true } })
                }
                try write(source.model, sourceKey, old: before, new: sv)
                log(source.model) { $0.recordModified(sourceKey, PropertyMask(source.id)) }
            }
        }
        try record.withUnsafeBytes { buffer in
            let old = try RecordView(buffer)
            // Its own links, self-links included, leave the backlink index with it.
            for p in m.linkProperties {
                try updateBacklinks(p, key, old: try old.value(of: p), new: nil)
            }
            if let pk = m.primaryKey, !primaryKeyRemoved {
                let t = try writableTree(m.primaryKeyTree, slot: m.primaryKeyTreeSlot)
                try IndexKey.withEncoded(try old.value(of: pk), as: pk.type) { _ = try writeTx.delete(t, raw: $0) }
            }
            for p in m.indexedProperties {
                let t = try writableTree(p.indexTreeName, slot: p.indexTreeSlot)
                try IndexKey.withEncoded(try old.value(of: p), as: p.type, suffix: key) { _ = try writeTx.delete(t, raw: $0) }
            }
        }
        log(m) { $0.recordDelete(key) }
        return true
    }

    /// Writes a record and keeps the primary-key index, secondary indexes and backlinks in step.
    func write(_ m: ModelLayout, _ key: UInt64, old: [Value]?, new: [Value]) throws {
        let record = try RecordCodec.encode(new, layout: m)
        try maintainIndexes(m, key, old: old, new: new)
        for p in m.linkProperties where old == nil || old![p.id] != new[p.id] {
            try updateBacklinks(p, key, old: old?[p.id], new: new[p.id])
        }
        try putRecord(m, key, record)
    }
}
