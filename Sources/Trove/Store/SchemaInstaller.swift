import TroveStorage

/// Applies a configuration's schema at open: stores it in a new file, or compares it with the
/// stored one and applies additive changes, a migration, or a wipe, each in one transaction,
/// saying what a migration or a wipe discarded.
struct SchemaInstaller {
    let store: Store
    var configuration: StoreConfiguration { store.configuration }
    var storage: Storage { store.storage }

    /// The layout the store opens with, and what opening it discarded (nil: nothing).
    func install() throws -> (layout: StoreLayout, losses: MigrationLosses?) {
        let stored = try readStored()
        guard let stored else {
            let schema = try configuration.schema ?? Schema(models: [])
            let layout = StoreLayout(schema: schema, ids: [:], nextModelID: 1)
            if configuration.readOnly || configuration.schema == nil { return (layout, nil) }
            try inTransaction(layout) { tx in try save(layout, tx) }
            return (layout, nil)
        }
        let old = StoreLayout(schema: stored.schema, ids: stored.ids, nextModelID: stored.next)
        guard let new = configuration.schema, new != stored.schema else { return (old, nil) }
        let plan = new.migrationPlan(from: stored.schema)
        switch plan.verdict {
        case .unchanged, .automatic:
            if configuration.readOnly { return (old, nil) }
            let layout = StoreLayout(schema: new, ids: stored.ids, nextModelID: stored.next)
            try inTransaction(layout) { tx in
                try applyAdditive(from: old, to: layout, tx)
                try save(layout, tx)
            }
            return (layout, nil)
        case .migration:
            // Allowed by the higher schemaVersion: it runs and keeps the data, even with
            // deleteIfMigrationNeeded (unlike Realm's deleteRealmIfMigrationNeeded, which wipes).
            if configuration.readOnly {
                throw StoreError.migrationRequired("the store needs a migration to schema version \(new.schemaVersion), but it is open read-only")
            }
            let renames = Self.newModelNames(old: old, new: new)
            let layout = StoreLayout(schema: new, ids: migratedIDs(old: old, new: new, renames), nextModelID: stored.next)
            var losses: [MigrationLosses.Loss] = []
            try inTransaction(layout) { tx in
                losses = try self.losses(from: old, to: layout, renames, Snapshot(store: store, transaction: tx.writeTx, layout: old))
                try migrate(from: old, to: layout, renames, tx)
                try save(layout, tx)
            }
            return (layout, losses.isEmpty ? nil : MigrationLosses(cause: .migration(toSchemaVersion: new.schemaVersion), losses: losses))
        case .needsHigherVersion, .versionTooLow:
            let message: String
            do { try plan.check(); message = "migration needed" } catch { message = error.description }
            guard configuration.deleteIfMigrationNeeded, !configuration.readOnly else {
                throw StoreError.migrationRequired(message)
            }
            let layout = StoreLayout(schema: new, ids: [:], nextModelID: 1)
            var losses: [MigrationLosses.Loss] = []
            try inTransaction(layout) { tx in
                let snapshot = Snapshot(store: store, transaction: tx.writeTx, layout: old)
                losses = try old.models.map { .model($0.name, objects: try snapshot.count($0.name)) }
                for name in try tx.writeTx.treeNames() { try tx.writeTx.dropTree(named: name) }
                try save(layout, tx)
            }
            return (layout, MigrationLosses(cause: .reset(reason: message), losses: losses))
        }
    }

    private func readStored() throws -> (schema: Schema, ids: [String: (id: Int, properties: [String: Int])], next: Int)? {
        do {
            return try storage.read { tx in
                guard let t = try tx.tree(named: Store.metaTree) else { return nil }
                try checkFormat(try tx.get(t, Array("format".utf8)))
                guard let text = try tx.get(t, Array("schema".utf8)) else { return nil }
                let schema: Schema
                do { schema = try Schema(jsonData: text, fileName: "(stored schema)") } catch {
                    throw StoreError.corruptRecord("the schema stored in the file is unreadable: \(error)")
                }
                let idsText = try tx.get(t, Array("ids".utf8)) ?? Array("{}".utf8)
                let ids = StoreLayout.decodeIDs((try? JSONValue(parsing: idsText)) ?? .null)
                return (schema, ids.ids, ids.next)
            }
        } catch let e as StorageError {
            throw StoreError(e)
        }
    }

    /// Refuses a store whose object layer (the `_trove` tree's `format`) is newer than this
    /// build's ``Store/formatVersion``: its trees may mean what this build would misread.
    private func checkFormat(_ stored: [UInt8]?) throws {
        guard let stored else { return }
        let version = stored.count == 8 ? stored.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) } : -1
        guard (1...Store.formatVersion).contains(version) else {
            let found = version < 0 ? "an unreadable object format version" : "object format version \(version)"
            throw StoreError.storage(.notATroveFile(path: configuration.path ?? "the in-memory store",
                                                    detail: "\(found), this build reads versions 1 to \(Store.formatVersion)"))
        }
    }

    private func inTransaction(_ layout: StoreLayout, _ body: (Transaction) throws -> Void) throws {
        let wtx: WriteTransaction
        do { wtx = try storage.beginWrite() } catch let e as StorageError { throw StoreError(e) }
        let tx = Transaction(store: store, transaction: wtx, layout: layout)
        do {
            try body(tx)
            try wtx.commit()
        } catch let e as StorageError {
            wtx.abort()
            throw StoreError(e)
        } catch {
            wtx.abort()
            throw error
        }
    }

    private func save(_ layout: StoreLayout, _ tx: Transaction) throws {
        let t = try tx.writableTree(Store.metaTree)
        try tx.writeTx.put(t, Array("schema".utf8), Array(layout.schema.jsonText(style: .compact).utf8))
        try tx.writeTx.put(t, Array("ids".utf8), Array(layout.idsJSON.jsonText.utf8))
        try tx.writeTx.put(t, Array("format".utf8), withUnsafeBytes(of: Store.formatVersion) { Array($0) })
    }

    /// New indexes are built from the records; dropped ones are deleted. Records keep their
    /// meaning (new properties read as their defaults).
    private func applyAdditive(from old: StoreLayout, to new: StoreLayout, _ tx: Transaction) throws {
        for m in new.models {
            let before = old.byID[m.id]
            for p in m.properties where p.isIndexed && !(before?.byName[p.name]?.isIndexed ?? false) {
                try tx.writeTx.dropTree(named: p.indexTreeName)
                tx.forgetTree(p.indexTreeName)
                let t = try tx.writableTree(p.indexTreeName)
                try tx.scan(m) { key, record in
                    let v = try record.value(of: p)
                    try tx.writeTx.put(t, IndexKey.encode(v, as: p.type) + withUnsafeBytes(of: key.bigEndian) { Array($0) }, [UInt8]())
                    return true
                }
            }
            for p in before?.properties ?? [] where p.isIndexed && !(m.byName[p.name]?.isIndexed ?? false) {
                try tx.writeTx.dropTree(named: p.indexTreeName)
                tx.forgetTree(p.indexTreeName)
            }
        }
    }

    /// Ids for the new schema: renamed models and properties keep theirs; a property whose type
    /// changed gets a fresh one, so its old bytes are never read as the new type.
    private func migratedIDs(old: StoreLayout, new: Schema, _ renames: [String: String]) -> [String: (id: Int, properties: [String: Int])] {
        var ids: [String: (Int, [String: Int])] = [:]
        for m in new.models {
            guard let om = Self.predecessor(of: m, in: old) else { continue }
            var props: [String: Int] = [:]
            for p in m.properties where p.isStored {
                if let op = Self.keptProperty(p, of: m, in: om, renames) { props[p.name] = op.id }
            }
            ids[m.name] = (om.id, props)
        }
        return ids
    }

    // What a migration keeps is decided here alone: the ids (so the rewrite, `migrate`) and the
    // report of what it drops (`losses`) both follow `predecessor` and `keptProperty`.

    /// The old model that `m` follows: the one it was renamed from, unless the old schema still
    /// has one of `m`'s name (as ``Schema/migrationPlan(from:)`` reads a rename), or else the one
    /// of its name.
    private static func predecessor(of m: ModelSchema, in old: StoreLayout) -> ModelLayout? {
        if let previous = m.previousName, let om = old.byName[previous], old.byName[m.name] == nil { return om }
        return old.byName[m.name]
    }

    /// The new name of each old model that a model of `new` follows, for link types.
    private static func newModelNames(old: StoreLayout, new: Schema) -> [String: String] {
        var names: [String: String] = [:]
        for m in new.models { if let om = predecessor(of: m, in: old) { names[om.name] = m.name } }
        return names
    }

    /// The stored old property that `p` of `m` follows: the one it was renamed from, unless
    /// `om` still has one of `p`'s name (as ``Schema/migrationPlan(from:)`` reads a rename), or
    /// else the one of its name. It `keeps` its values when they are stored as `p`'s are (a
    /// link to a renamed model as a link to its new name).
    private static func predecessor(of p: PropertySchema, of m: ModelSchema, in om: ModelLayout,
                                    _ renames: [String: String]) -> (property: PropertyLayout, keeps: Bool)? {
        let renamed = m.previousName(ofProperty: p.name).flatMap { om.byName[$0] }
        let op = om.byName[p.name] ?? renamed
        guard let op, op.isStored else { return nil }
        return (op, op.type.renamingModels(renames).isStorageEquivalent(to: p.type))
    }

    /// The old property whose values `p` of `m` keeps. Any other property of `m` starts from
    /// its default: its fresh id may be one an old property had, whose values must not be read as it.
    private static func keptProperty(_ p: PropertySchema, of m: ModelSchema, in om: ModelLayout,
                                     _ renames: [String: String]) -> PropertyLayout? {
        predecessor(of: p, of: m, in: om, renames).flatMap { $0.keeps ? $0.property : nil }
    }

    /// Whether a null that `p` keeps from its predecessor becomes `p`'s default: `p` cannot be
    /// null (a link can: its object may be gone).
    private static func nullBecomesDefault(_ p: PropertyLayout) -> Bool { !p.isOptional && !p.isLink }

    /// What migrating from `old` to `new` discards (read from `snapshot`, of `old`): the values
    /// of properties that do not keep their predecessor's, the nulls of those made required,
    /// stored properties that no property follows, and models that none follows.
    private func losses(from old: StoreLayout, to new: StoreLayout, _ renames: [String: String],
                        _ snapshot: Snapshot) throws -> [MigrationLosses.Loss] {
        var losses: [MigrationLosses.Loss] = []
        var keptModels = Set<Int>()
        for m in new.models {
            guard let om = old.byID[m.id] else { continue }
            keptModels.insert(om.id)
            var followed = Set<Int>()
            for p in m.properties where p.isStored {
                guard let predecessor = Self.predecessor(of: p.schema, of: m.schema, in: om, renames) else { continue }
                followed.insert(predecessor.property.id)
                if !predecessor.keeps {
                    losses.append(.values(model: m.name, property: p.name, from: predecessor.property.type, to: p.type))
                } else if predecessor.property.isOptional, Self.nullBecomesDefault(p) {
                    var nulls = 0
                    try snapshot.scan(om) { _, record in
                        if try record.value(of: predecessor.property).isNull { nulls += 1 }
                        return true
                    }
                    if nulls > 0 { losses.append(.nulls(model: m.name, property: p.name, objects: nulls)) }
                }
            }
            for op in om.properties where op.isStored && !followed.contains(op.id) {
                losses.append(.property(model: m.name, property: op.name))
            }
        }
        for om in old.models where !keptModels.contains(om.id) {
            losses.append(.model(om.name, objects: try snapshot.count(om.name)))
        }
        return losses
    }

    /// Rewrites every object under the new layout, runs the migration closure, and rebuilds
    /// every index and the backlinks.
    private func migrate(from old: StoreLayout, to new: StoreLayout, _ renames: [String: String], _ tx: Transaction) throws {
        var tables: [String: MigrationTable] = [:]
        let oldSnapshot = Snapshot(store: store, transaction: tx.writeTx, layout: old)
        for m in new.models {
            let table = MigrationTable()
            tables[m.name] = table
            guard let om = old.byID[m.id] else { continue }
            try oldSnapshot.scan(om) { key, record in
                var oldValues: [String: Value] = [:]
                for p in om.properties where p.isStored { oldValues[p.name] = try record.value(of: p) }
                var newValues: [String: Value] = [:]
                for p in m.properties where p.isStored {
                    if let op = Self.keptProperty(p.schema, of: m.schema, in: om, renames) {
                        let v = try record.value(of: op)
                        newValues[p.name] = v.isNull && Self.nullBecomesDefault(p) ? p.defaultValue : v
                    } else {
                        newValues[p.name] = p.defaultValue
                    }
                }
                table.rows.append((key, oldValues, MutableMigrationObject(values: newValues)))
                return true
            }
        }
        if let closure = configuration.migration {
            try closure(Migration(oldSchema: old.schema, newSchema: new.schema, tables: tables))
        }
        // Start over: drop every data tree, then write each object back with fresh indexes.
        for name in try tx.writeTx.treeNames() where name != Store.metaTree {
            try tx.writeTx.dropTree(named: name)
            tx.forgetTree(name)
        }
        var alive: [Int: Set<UInt64>] = [:]
        for m in new.models { alive[m.id] = Set(tables[m.name]?.rows.map(\.key) ?? []) }
        for m in new.models {
            for row in tables[m.name]?.rows ?? [] {
                var values = [Value](repeating: .null, count: m.byID.count)
                for p in m.properties where p.isStored {
                    var v = row.new.values[p.name] ?? p.defaultValue
                    // Links into objects that no longer exist become null / leave their list.
                    if let target = p.target {
                        let live = alive[target.id] ?? []
                        switch v {
                        case .reference(let r): if !live.contains(r.key) { v = .null }
                        case .list(let items) where p.isLinkList:
                            v = .list(items.filter { if case .reference(let r) = $0 { live.contains(r.key) } else { false } })
                        default: break
                        }
                        v = try relabel(v, target: target)
                    } else if !v.isNull || !p.isOptional {
                        v = try tx.resolve(v, for: p, depth: 0)
                    }
                    values[p.id] = v
                }
                if let pk = m.primaryKey, try tx.objectKey(m, primaryKey: values[pk.id]) != nil {
                    throw StoreError.duplicatePrimaryKey(model: m.name, value: values[pk.id].description)
                }
                try tx.write(m, row.key, old: nil, new: values)
            }
        }
    }

    private func relabel(_ v: Value, target: ModelLayout) throws -> Value {
        switch v {
        case .reference(let r): return .reference(ObjectReference(model: target.name, key: r.key))
        case .list(let items): return .list(try items.map { try relabel($0, target: target) })
        default: return v
        }
    }
}
