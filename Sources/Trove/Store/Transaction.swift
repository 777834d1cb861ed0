import Foundation
import TroveStorage

/// What one commit changed in one model: object keys inserted, deleted, and modified with the
/// ids of the properties that changed. Live results and observers are driven by this.
public struct ModelChanges: Sendable {
    public var inserted: Set<UInt64> = []
    public var deleted: Set<UInt64> = []
    /// Modified objects and the names of the properties whose values changed.
    public var modified: [UInt64: Set<String>] = [:]

    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty }
}

/// The result of an upsert: the object, whether it was created, and which given properties
/// actually changed value (Realm's `update: .modified`).
public struct UpsertResult {
    public let object: DynamicObject
    public let created: Bool
    public let changedProperties: [String]
}

/// A write transaction: reads see its own writes; everything applies at commit or not at all.
/// Get one from ``Store/write(_:)``.
public final class Transaction: Snapshot {
    let writeTx: TroveStorage.WriteTransaction
    /// Changes so far, by model name.
    public private(set) var changes: [String: ModelChanges] = [:]
    private var nextKeys: [Int: UInt64] = [:]

    /// Whether it came from ``Store/beginWrite()`` and is committed by hand.
    var isExplicit = false

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
        let key = try insertObject(m, values)
        return try object(m, key: key)!
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
        let key = try insertObject(m, values)
        return UpsertResult(object: try object(m, key: key)!, created: true, changedProperties: values.keys.sorted())
    }

    /// Sets the given properties of the object with this primary key; returns the names of
    /// those whose value changed. Throws if there is no such object.
    @discardableResult
    public func update(_ model: String, primaryKey: Value, _ values: [String: Value]) throws -> [String] {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey) else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: primaryKey.description)
        }
        return try updateObject(m, key, values)
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
        return try object(m, key: try insertObject(m, [pk.name: primaryKey]))!
    }

    /// Deletes the object with this primary key; false if there was none. Links to it become
    /// null and it leaves every list that held it.
    @discardableResult
    public func delete(_ model: String, primaryKey: Value) throws -> Bool {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey) else { return false }
        try deleteObject(m, key)
        return true
    }

    /// Deletes a stored object; false if it was already gone.
    @discardableResult
    public func delete(_ object: ObjectReference) throws -> Bool {
        try checkLive()
        let m = try model(object.model)
        guard try withRecord(m, object.key, { _ in true }) != nil else { return false }
        try deleteObject(m, object.key)
        return true
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
            for p in m.byID.compactMap({ $0 }) { out[p.id] = try r.value(of: p) }
            return out
        }
    }

    func allocateKey(_ m: ModelLayout) throws -> UInt64 {
        if let k = nextKeys[m.id] { nextKeys[m.id] = k + 1; return k }
        var next: UInt64 = 1
        if let t = try tree(m.objectsTree) {
            let c = try writeTx.cursor(t)
            if try c.last() { next = try c.withKey { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) } + 1 }
        }
        nextKeys[m.id] = next + 1
        return next
    }

    /// Checks and converts a given value for property `p`, resolving links to object keys.
    func resolve(_ v: Value, for p: PropertyLayout, depth: Int) throws -> Value {
        if p.isLinkingObjects { throw StoreError.readOnlyProperty(model: p.model.name, property: p.name) }
        if p.isList {
            if case .null = v { return .list([]) }
            guard case .list(let items) = v else { throw StoreError.typeMismatch(property: p.name, expected: "a list", found: v.kindDescription) }
            if p.isLinkList {
                return .list(try items.map { item in
                    let r = try resolveLink(item, for: p, depth: depth)
                    guard case .reference = r else { throw StoreError.nullNotAllowed(model: p.model.name, property: p.name) }
                    return r
                })
            }
            return .list(try items.map { try Coercion.scalar($0, for: p) })
        }
        if p.isLink { return try resolveLink(v, for: p, depth: depth) }
        return try Coercion.scalar(v, for: p)
    }

    private func resolveLink(_ v: Value, for p: PropertyLayout, depth: Int) throws -> Value {
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
            guard depth < 32 else { throw StoreError.invalidArgument("objects nested more than 32 levels deep") }
            if let pk = target.primaryKey, let pkValue = dict[pk.name], let key = try objectKey(target, primaryKey: pkValue) {
                _ = try updateObject(target, key, dict, depth: depth + 1)
                return .reference(ObjectReference(model: target.name, key: key))
            }
            return .reference(ObjectReference(model: target.name, key: try insertObject(target, dict, depth: depth + 1)))
        default:
            guard target.primaryKey != nil else {
                throw StoreError.typeMismatch(property: p.name, expected: "an object of \(target.name)", found: v.kindDescription)
            }
            guard let key = try objectKey(target, primaryKey: v) else {
                throw StoreError.linkTargetNotFound(property: p.name, model: target.name, primaryKey: v.description)
            }
            return .reference(ObjectReference(model: target.name, key: key))
        }
    }

    @discardableResult
    func insertObject(_ m: ModelLayout, _ given: [String: Value], depth: Int = 0) throws -> UInt64 {
        var values = [Value](repeating: .null, count: m.byID.count)
        for p in m.properties where p.isStored { values[p.id] = p.defaultValue }
        for (name, v) in given {
            let p = try property(m, name)
            values[p.id] = try resolve(v, for: p, depth: depth)
        }
        if let pk = m.primaryKey {
            guard given[pk.name] != nil else { throw StoreError.missingPrimaryKey(model: m.name) }
            if try objectKey(m, primaryKey: values[pk.id]) != nil {
                throw StoreError.duplicatePrimaryKey(model: m.name, value: values[pk.id].description)
            }
        }
        let key = try allocateKey(m)
        try write(m, key, old: nil, new: values)
        changes[m.name, default: ModelChanges()].inserted.insert(key)
        return key
    }

    func updateObject(_ m: ModelLayout, _ key: UInt64, _ given: [String: Value], depth: Int = 0) throws -> [String] {
        guard let old = try values(of: m, key: key) else {
            throw StoreError.objectNotFound(model: m.name, primaryKey: "#\(key)")
        }
        var new = old
        var changed: [String] = []
        for (name, v) in given.sorted(by: { $0.key < $1.key }) {
            let p = try property(m, name)
            let resolved = try resolve(v, for: p, depth: depth)
            if p === m.primaryKey {
                if resolved != old[p.id] { throw StoreError.invalidArgument("the primary key of \(m.name) cannot be changed (\(old[p.id]) to \(resolved))") }
                continue
            }
            if !same(resolved, old[p.id]) {
                new[p.id] = resolved
                changed.append(name)
            }
        }
        if !changed.isEmpty {
            try write(m, key, old: old, new: new)
            if !(changes[m.name]?.inserted.contains(key) ?? false) {
                changes[m.name, default: ModelChanges()].modified[key, default: []].formUnion(changed)
            }
        }
        return changed
    }

    private func same(_ a: Value, _ b: Value) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern || x == y }
        if case .float(let x) = a, case .float(let y) = b { return x.bitPattern == y.bitPattern || x == y }
        return a == b
    }

    func deleteObject(_ m: ModelLayout, _ key: UInt64) throws {
        guard let old = try values(of: m, key: key) else { return }
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
                if !(changes[source.model.name]?.inserted.contains(sourceKey) ?? false) {
                    changes[source.model.name, default: ModelChanges()].modified[sourceKey, default: []].insert(source.name)
                }
            }
        }
        // Self-links are dropped with the object.
        var cleared = old
        for p in m.properties where p.isLink || p.isLinkList { cleared[p.id] = p.isLink ? .null : .list([]) }
        try maintainBacklinks(m, key, old: old, new: cleared)
        try maintainIndexes(m, key, old: old, new: nil)
        var k = key.bigEndian
        _ = try withUnsafeBytes(of: &k) { try writeTx.delete(try writableTree(m.objectsTree), raw: $0) }
        if changes[m.name]?.inserted.remove(key) == nil {
            changes[m.name, default: ModelChanges()].deleted.insert(key)
        }
        changes[m.name]?.modified[key] = nil
    }

    /// Writes a record and keeps the primary-key index, secondary indexes and backlinks in step.
    func write(_ m: ModelLayout, _ key: UInt64, old: [Value]?, new: [Value]) throws {
        try maintainIndexes(m, key, old: old, new: new)
        try maintainBacklinks(m, key, old: old, new: new)
        let record = try RecordCodec.encode(new, layout: m)
        var k = key.bigEndian
        try withUnsafeBytes(of: &k) { kb in
            try record.withUnsafeBytes { try writeTx.put(try writableTree(m.objectsTree), raw: kb, $0) }
        }
    }

    private func maintainIndexes(_ m: ModelLayout, _ key: UInt64, old: [Value]?, new: [Value]?) throws {
        if let pk = m.primaryKey {
            let o = old?[pk.id], n = new?[pk.id]
            if o != n || new == nil {
                let t = try writableTree(m.primaryKeyTree)
                if let o, old != nil { try writeTx.delete(t, IndexKey.encode(o, as: pk.type)) }
                if let n { try writeTx.put(t, IndexKey.encode(n, as: pk.type), withUnsafeBytes(of: key.bigEndian) { Array($0) }) }
            }
        }
        for p in m.properties where p.isIndexed {
            let o = old?[p.id], n = new?[p.id]
            if old != nil, new != nil, o == n { continue }
            let t = try writableTree(p.indexTreeName)
            if let o { try writeTx.delete(t, IndexKey.encode(o, as: p.type) + withUnsafeBytes(of: key.bigEndian) { Array($0) }) }
            if let n { try writeTx.put(t, IndexKey.encode(n, as: p.type) + withUnsafeBytes(of: key.bigEndian) { Array($0) }, [UInt8]()) }
        }
    }

    private func maintainBacklinks(_ m: ModelLayout, _ key: UInt64, old: [Value]?, new: [Value]) throws {
        for p in m.properties where (p.isLink || p.isLinkList) {
            guard let target = p.target else { continue }
            if let old, old[p.id] == new[p.id] { continue }
            let before = Transaction.counts(old?[p.id]), after = Transaction.counts(new[p.id])
            if before == after { continue }
            let t = try writableTree(Backlinks.treeName)
            for targetKey in Set(before.keys).union(after.keys) {
                let b = before[targetKey] ?? 0, a = after[targetKey] ?? 0
                if a == b { continue }
                let bk = Backlinks.key(targetModel: target.id, targetKey: targetKey, sourceModel: m.id, sourceProperty: p.id, sourceKey: key)
                if a == 0 { try writeTx.delete(t, bk) } else { try writeTx.put(t, bk, withUnsafeBytes(of: UInt32(a)) { Array($0) }) }
            }
        }
    }

    private static func counts(_ v: Value?) -> [UInt64: Int] {
        var out: [UInt64: Int] = [:]
        switch v {
        case .reference(let r)?: out[r.key] = 1
        case .list(let items)?:
            for case .reference(let r) in items { out[r.key, default: 0] += 1 }
        default: break
        }
        return out
    }
}
