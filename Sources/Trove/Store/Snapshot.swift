#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TroveStorage

/// A consistent, read-only view of a store: every read in it sees the same commit, whatever
/// writers do meanwhile. Objects fetched from a snapshot stay readable while it lives.
///
/// Use it from one thread at a time. To hand objects to another thread, hand their primary
/// keys and fetch them again there (``Snapshot/objects(_:forPrimaryKeys:)``).
public class Snapshot {
    public let store: Store
    let storageTx: TroveStorage.ReadTransaction
    let layout: StoreLayout
    private var trees: [String: Tree] = [:]
    private var missingTrees: Set<String> = []
    // Read by every query: unchecked exclusivity spares each read a runtime access check (a
    // snapshot is used from one thread, and nothing here reads them while they change).
    /// Tree handles by layout slot (``ModelLayout/objectsTreeSlot``), filled on first use.
    @exclusivity(unchecked) private var slots: [CachedTree] = []
    /// The model `model(_:)` found last, and the one before it: a typed write asks in turn
    /// for its own model and for that of the instance it links to (each player's team).
    @exclusivity(unchecked) private var lastModel: ModelLayout?
    @exclusivity(unchecked) private var previousModel: ModelLayout?
    var isLive = true
    /// Typed models' linked values read so far, by Swift type (see ``linkedValueCache(for:_:)``).
    var linkedValueCaches: [ObjectIdentifier: AnyObject] = [:]

    init(store: Store, transaction: TroveStorage.ReadTransaction, layout: StoreLayout? = nil) {
        self.store = store
        self.storageTx = transaction
        self.layout = layout ?? store.layout
    }

    /// The schema of the store.
    public var schema: Schema { layout.schema }

    /// The commit this snapshot reads.
    public var version: UInt64 { storageTx.snapshotID }

    /// Ends the snapshot (also done when it is released); objects read from it become unusable.
    public func end() {
        isLive = false
        storageTx.end()
    }

    func checkLive() throws {
        if !isLive { throw StoreError.invalidated }
    }

    // MARK: Layout lookups

    /// Throws ``StoreError/noSuchModel(_:)`` unless the store has a model named `name`: what a
    /// typed fetch checks before it builds its query text, whose parse error would point into
    /// text the caller never wrote.
    package func requireModel(_ name: String) throws {
        _ = try model(name)
    }

    func model(_ name: String) throws -> ModelLayout {
        // Queries in a loop name the same model: a string comparison costs less than a hash.
        if let m = lastModel, m.name == name { return m }
        if let m = previousModel, m.name == name { return m }
        guard let m = layout.byName[name] else { throw StoreError.noSuchModel(name) }
        previousModel = lastModel
        lastModel = m
        return m
    }

    func property(_ m: ModelLayout, _ name: String) throws -> PropertyLayout {
        guard let p = m.byName[name] else { throw StoreError.noSuchProperty(model: m.name, property: name) }
        return p
    }

    func tree(_ name: String) throws -> Tree? {
        if let t = trees[name] { return t }
        if missingTrees.contains(name) { return nil }
        guard let t = try storageTx.tree(named: name) else { missingTrees.insert(name); return nil }
        trees[name] = t
        return t
    }

    func forgetTree(_ name: String) {
        trees[name] = nil
        missingTrees.remove(name)
        slots.removeAll()
    }

    private enum CachedTree {
        case unknown
        case missing(String)
        case present(Tree)
    }

    /// The tree `name`, cached at `slot` of this snapshot's layout. A layout object of another
    /// layout (a migration reads with the old one) may give a slot of a different tree: the
    /// name check catches it and falls back to the lookup by name.
    @inline(__always)
    func tree(_ name: String, slot: Int) throws -> Tree? {
        if slot < slots.count {
            switch slots[slot] {
            case .present(let t) where t.name == name: return t
            case .missing(let n) where n == name: return nil
            default: break
            }
        }
        return try resolveSlot(name, slot)
    }

    private func resolveSlot(_ name: String, _ slot: Int) throws -> Tree? {
        // The storage transaction keeps its open trees: no need for `trees` as well.
        let t = try storageTx.tree(named: name)
        if slots.isEmpty { slots = Array(repeating: .unknown, count: layout.treeSlotCount) }
        if slot < slots.count, layout.treeSlotCount == slots.count {
            slots[slot] = t.map { .present($0) } ?? .missing(name)
        }
        return t
    }

    func objectsTree(_ m: ModelLayout) throws -> Tree? { try tree(m.objectsTree, slot: m.objectsTreeSlot) }
    func primaryKeyTree(_ m: ModelLayout) throws -> Tree? { try tree(m.primaryKeyTree, slot: m.primaryKeyTreeSlot) }
    func indexTree(_ p: PropertyLayout) throws -> Tree? { try tree(p.indexTreeName, slot: p.indexTreeSlot) }
    func backlinksTree() throws -> Tree? { try tree(Backlinks.treeName, slot: StoreLayout.backlinksTreeSlot) }

    // MARK: Records

    @inline(__always)
    static func keyBytes(_ key: UInt64) -> UInt64 { key.bigEndian }

    /// Calls `body` with the record of object `key`, or returns nil if there is none.
    func withRecord<R>(_ m: ModelLayout, _ key: UInt64, _ body: (RecordView) throws -> R) throws -> R? {
        guard let t = try objectsTree(m) else { return nil }
        var k = key.bigEndian
        return try withUnsafeBytes(of: &k) { kb in
            try storageTx.withValue(t, forKey: kb) { try body(try RecordView($0)) }
        }
    }

    /// The object key of the object whose primary key is `value`.
    func objectKey(_ m: ModelLayout, primaryKey value: Value) throws -> UInt64? {
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        let coerced = try Coercion.stored(value, for: pk)
        guard let t = try primaryKeyTree(m) else { return nil }
        return try IndexKey.withEncoded(coerced, as: pk.type) { kb in
            try storageTx.withValue(t, forKey: kb) { IndexKey.objectKey(value: $0) }
        } ?? nil
    }

    /// Every object key of a model, in key (insertion) order.
    func allKeys(_ m: ModelLayout) throws -> [UInt64] {
        guard let t = try tree(m.objectsTree) else { return [] }
        var keys: [UInt64] = []
        keys.reserveCapacity(t.count)
        let c = try storageTx.cursor(t)
        var ok = try c.first()
        while ok {
            keys.append(try c.withKey { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
            ok = try c.next()
        }
        return keys
    }

    /// Visits every object of a model with its record, in key order, until `body` returns false.
    func scan(_ m: ModelLayout, _ body: (UInt64, RecordView) throws -> Bool) throws {
        guard let t = try objectsTree(m) else { return }
        try storageTx.forEach(t) { k, v in try body(try Self.objectKey(k), try RecordView(v)) }
    }

    /// The object key an objects-tree key holds.
    @inline(__always)
    static func objectKey(_ k: UnsafeRawBufferPointer) throws -> UInt64 {
        guard k.count == 8 else { throw StoreError.corruptRecord("object key of \(k.count) bytes") }
        return UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))
    }

    /// The keys of the objects of `source` whose `property` links to object `key` (of `target`).
    func backlinks(to target: ModelLayout, key: UInt64, from property: PropertyLayout) throws -> [UInt64] {
        var out: [UInt64] = []
        try appendBacklinks(to: target, key: key, from: property, into: &out)
        return out
    }

    /// Appends the keys `backlinks(to:key:from:)` returns to `out`, in one walk of the index.
    func appendBacklinks(to target: ModelLayout, key: UInt64, from property: PropertyLayout, into out: inout [UInt64]) throws {
        guard let t = try backlinksTree() else { return }
        let prefix = Backlinks.prefix(targetModel: target.id, targetKey: key, sourceModel: property.model.id, sourceProperty: property.id)
        try prefix.withUnsafeBytes { prefix in
            try storageTx.forEach(t, from: prefix) { k, _ in
                guard k.count == Backlinks.keySize, memcmp(k.baseAddress!, prefix.baseAddress!, prefix.count) == 0 else { return false }
                out.append(UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 14, as: UInt64.self)))
                return true
            }
        }
    }

    // MARK: Public reads

    /// The object of `model` whose primary key is `primaryKey`, or nil.
    public func object(_ model: String, primaryKey: Value) throws -> DynamicObject? {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey) else { return nil }
        return try object(m, key: key)
    }

    /// Calls `body` with the object of `model` whose primary key is `primaryKey`, read in
    /// place, and returns what it returns; nil if there is no such object.
    ///
    /// ```swift
    /// let (name, age) = try snapshot.withObject("User", primaryKey: "u1") { user in
    ///     (try user.string("name"), try user.int("age"))
    /// } ?? (nil, nil)
    /// ```
    /// The view reads the record in the store's pages: nothing is copied or allocated for it
    /// in a read-only snapshot. It is valid only inside `body`.
    public func withObject<R>(_ model: String, primaryKey: Value, _ body: (ObjectView) throws -> R) throws -> R? {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey), let t = try objectsTree(m) else { return nil }
        var k = key.bigEndian
        return try withUnsafeBytes(of: &k) { kb in
            try storageTx.withStableValue(t, forKey: kb) { bytes in
                try body(ObjectView(snapshot: self, model: m, key: key, record: try RecordView(bytes)))
            }
        }
    }

    /// The value of property `name` of object `key`, whose record is `record`: linkingObjects
    /// come from the backlink index, the rest from the record.
    func storedValue(_ m: ModelLayout, key: UInt64, record: RecordView, property name: String) throws -> Value {
        let p = try property(m, name)
        if p.isLinkingObjects {
            guard let target = p.target, let origin = p.origin else { return .list([]) }
            try checkLive()
            return .list(try backlinks(to: m, key: key, from: origin).map { .reference(ObjectReference(model: target.name, key: $0)) })
        }
        return try record.value(of: p)
    }

    /// The object a reference names, or nil if it was deleted.
    public func object(_ reference: ObjectReference) throws -> DynamicObject? {
        try checkLive()
        return try object(try model(reference.model), key: reference.key)
    }

    func object(_ m: ModelLayout, key: UInt64) throws -> DynamicObject? {
        guard let record = try withRecord(m, key, { [UInt8](UnsafeRawBufferPointer(start: $0.base, count: $0.count)) }) else { return nil }
        return DynamicObject(snapshot: self, model: m, key: key, record: record)
    }

    /// Every object of `model`, in insertion order, fetched lazily.
    public func objects(_ model: String) throws -> Results {
        try checkLive()
        let m = try self.model(model)
        return Results(snapshot: self, model: m, keys: try allKeys(m))
    }

    /// The number of objects of `model`.
    public func count(_ model: String) throws -> Int {
        try checkLive()
        return try objectsTree(try self.model(model))?.count ?? 0
    }

    /// The objects with these primary keys, in the order of `keys` (missing ones skipped): the
    /// fetch after a background write handed keys back.
    public func objects(_ model: String, forPrimaryKeys keys: [Value]) throws -> [DynamicObject] {
        try checkLive()
        let m = try self.model(model)
        var out: [DynamicObject] = []
        out.reserveCapacity(keys.count)
        for k in keys {
            guard let key = try objectKey(m, primaryKey: k), let o = try object(m, key: key) else { continue }
            out.append(o)
        }
        return out
    }

    /// The primary keys of `objects`, to hand to another thread or a completion handler.
    public static func primaryKeys(of objects: some Sequence<DynamicObject>) throws -> [Value] {
        try objects.map { o in
            guard let pk = try o.primaryKey else { throw StoreError.noPrimaryKey(model: o.modelName) }
            return pk
        }
    }

    /// Converts a JSON object (a shell or import record) to values typed by `model`'s schema:
    /// dates from ISO 8601, data from base64, links from primary keys or nested objects.
    public func values(fromJSON json: JSONObject, model: String) throws -> [String: Value] {
        let m = try self.model(model)
        var out: [String: Value] = [:]
        out.reserveCapacity(json.pairs.count)
        for (name, v) in json.pairs {
            let p = try property(m, name)
            out[name] = try ValueJSON.value(v, for: p)
        }
        return out
    }
}

/// The backlink index: one entry per (target, source property, source) link, so
/// linkingObjects and link integrity never scan. Key (big-endian): target model u16, target
/// key u64, source model u16, source property u16, source key u64; value: u32 count (a list
/// may hold the same object more than once).
enum Backlinks {
    static let treeName = "b"
    static let keySize = 22

    static func prefix(targetModel: Int, targetKey: UInt64, sourceModel: Int? = nil, sourceProperty: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(keySize)
        withUnsafeBytes(of: UInt16(targetModel).bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: targetKey.bigEndian) { out.append(contentsOf: $0) }
        if let sourceModel { withUnsafeBytes(of: UInt16(sourceModel).bigEndian) { out.append(contentsOf: $0) } }
        if let sourceProperty { withUnsafeBytes(of: UInt16(sourceProperty).bigEndian) { out.append(contentsOf: $0) } }
        return out
    }

    /// Calls `body` with the bytes of ``key(targetModel:targetKey:sourceModel:sourceProperty:sourceKey:)``
    /// built on the stack.
    static func withKey<R>(targetModel: Int, targetKey: UInt64, sourceModel: Int, sourceProperty: Int, sourceKey: UInt64,
                           _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var k: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return try withUnsafeMutableBytes(of: &k) { b in
            b.storeBytes(of: UInt16(targetModel).bigEndian, toByteOffset: 0, as: UInt16.self)
            b.storeBytes(of: targetKey.bigEndian, toByteOffset: 2, as: UInt64.self)
            b.storeBytes(of: UInt16(sourceModel).bigEndian, toByteOffset: 10, as: UInt16.self)
            b.storeBytes(of: UInt16(sourceProperty).bigEndian, toByteOffset: 12, as: UInt16.self)
            b.storeBytes(of: sourceKey.bigEndian, toByteOffset: 14, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: b[0..<keySize]))
        }
    }

    static func key(targetModel: Int, targetKey: UInt64, sourceModel: Int, sourceProperty: Int, sourceKey: UInt64) -> [UInt8] {
        var out = prefix(targetModel: targetModel, targetKey: targetKey, sourceModel: sourceModel, sourceProperty: sourceProperty)
        withUnsafeBytes(of: sourceKey.bigEndian) { out.append(contentsOf: $0) }
        return out
    }
}

extension UnsafeRawBufferPointer {
    func starts(with prefix: [UInt8]) -> Bool {
        guard count >= prefix.count else { return false }
        for i in 0..<prefix.count where self[i] != prefix[i] { return false }
        return true
    }
}
