#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

extension Transaction {
    /// Stores `value` as a new object; the values it links to are upserted. An existing
    /// primary key is an error.
    public func insert<T: PersistentModel>(_ value: T) throws {
        let properties = try writingInstances(of: T.self) { try T._writtenProperties(of: value) }
        try ValueTransaction(self).add(T.modelName, properties: properties, update: false,
                                       writtenBy: ObjectIdentifier(T.self), writesWhole: T.writesWholeObjects(in:))
    }

    /// Stores `value`, replacing the object with its primary key if there is one.
    public func upsert<T: PersistentModel>(_ value: T) throws {
        let properties = try writingInstances(of: T.self) { try T._writtenProperties(of: value) }
        try ValueTransaction(self).add(T.modelName, properties: properties, update: true,
                                       writtenBy: ObjectIdentifier(T.self), writesWhole: T.writesWholeObjects(in:))
    }

    /// Deletes the object with `value`'s primary key; false if there was none.
    @discardableResult
    public func delete<T: PersistentModel>(_ value: T) throws -> Bool {
        try delete(T.modelName, primaryKey: try T.primaryKeyValue(of: value))
    }

    /// Deletes the object of `T` with this primary key; false if there was none.
    @discardableResult
    public func delete<T: PersistentModel, K: StorableProperty>(_ type: T.Type, primaryKey: K) throws -> Bool {
        try delete(T.modelName, primaryKey: primaryKey.storedValue())
    }

    /// Changes `value` with `body` and writes only the properties `body` changed to the stored
    /// object with `value`'s primary key, as GRDB's `updateChanges` does; returns the changed
    /// value: for a struct, `value` with `body`'s changes; for a class, see below.
    ///
    /// For a struct, what is written is the difference `body` makes to `value`, not to the
    /// stored object: a change made to `value` before the call is not written, a property
    /// `body` sets is written as `value`'s copy with the change (`$0.age += 1` adds to `value`'s
    /// age, `$0.tags.append(x)` writes `value`'s tags and `x`), and the other properties of the
    /// returned value are `value`'s, not refreshed from the store. Read the value in the same
    /// transaction to update what is stored:
    ///
    /// ```swift
    /// try store.write { tx in
    ///     guard let person = try tx.object(Person.self, primaryKey: 1) else { return }
    ///     try tx.update(person) { $0.age += 1 }      // writes `age` alone, one more than stored
    /// }
    /// ```
    ///
    /// A `@Model` class's `body` changes a new instance of the stored object with `value`'s
    /// primary key, read in this transaction, and what it changed there is written: `value`
    /// gives only the key and is left as it was (a change made to it before the call is not
    /// written either), and the result is that stored instance with the changes. No stored
    /// object with the key is ``Trove/StoreError/objectNotFound(model:primaryKey:)``.
    ///
    /// A class whose property table is listed by hand (no `@Model`) has no comparisons to
    /// find what `body` changed: `body` changes `value` itself, and every stored property of
    /// it is written, changes made before the call included.
    ///
    /// Inlinable so that the comparisons and reads `@Model` writes
    /// (``PersistentModel/_partialUpdate(from:to:)``), or the property table of a type listed by
    /// hand, run in code specialized for `T`: in generic code each read of an entry looks up its
    /// type's metadata and copies it through value witnesses.
    @inlinable @discardableResult
    public func update<T: PersistentModel>(_ value: T, _ body: (inout T) throws -> Void) throws -> T {
        if _canBeClass(T.self) != 0 && T.self is AnyClass {
            // A class listed by hand has no comparisons to find what `body` changed: every
            // stored property is written.
            return T._writesEveryProperty ? try updateStored(value, body)
                : try updateThroughTable(value, body, writing: { _, _ in T.storedPropertyIndices })
        }
        var changed = value
        try body(&changed)
        // The linked instances are written before the update: not for an object that is not there.
        if !T._nestsNoClassInstance { try requireStored(value) }
        guard let update = try writingInstances(of: T.self, { try T._partialUpdate(from: value, to: changed) }) else {
            return try updateThroughTable(value, { $0 = changed }, writing: T._changedProperties(from:to:))
        }
        try update.write(T.modelName, in: self)
        return changed
    }

    /// Throws ``Trove/StoreError/objectNotFound(model:primaryKey:)`` when `value`'s object is not stored.
    @usableFromInline
    func requireStored<T: PersistentModel>(_ value: T) throws {
        try requireObject(T.modelName, primaryKey: T.primaryKeyValue(of: value))
    }

    @usableFromInline
    func requireStored(_ model: String, primaryKey: Value) throws {
        try requireObject(model, primaryKey: primaryKey)
    }

    /// The partial update of a class model: `body` changes an instance of the stored object,
    /// compared with another. Two reads, as a class instance cannot be copied; the instance
    /// the caller holds may have been changed since it was read, and shares its linked
    /// instances with whatever else the caller holds.
    @usableFromInline
    func updateStored<T: PersistentModel>(_ value: T, _ body: (inout T) throws -> Void) throws -> T {
        let key = try T.primaryKeyValue(of: value)
        guard let stored = try object(T.self, primaryKey: key), var changed = try object(T.self, primaryKey: key) else {
            throw StoreError.objectNotFound(model: T.modelName, primaryKey: key.description)
        }
        try body(&changed)
        if let update = try writingInstances(of: T.self, { try T._partialUpdate(from: stored, to: changed) }) {
            try update.write(T.modelName, in: self)
            return changed
        }
        return try updateThroughTable(stored, { $0 = changed }, writing: T._changedProperties(from:to:))
    }

    /// An update of a type without ``PersistentModel/_partialUpdate(from:to:)``: the key and
    /// the values read through the property table, at the positions `writing` gives for the
    /// value before and after `body` (the changed ones, or, for a class listed by hand, whose
    /// `body` changes the caller's instance and so leaves no earlier value, every stored one).
    @inlinable
    func updateThroughTable<T: PersistentModel>(_ value: T, _ body: (inout T) throws -> Void,
                                                writing: (_ old: T, _ new: T) throws -> [Int]) throws -> T {
        let table = T.modelProperties
        let primaryKey = try T.primaryKeyIndex()
        let key = try table[primaryKey].storedValue(value)
        var changed = value
        try body(&changed)
        let indices = try writing(value, changed)
        if indices.isEmpty { return changed }
        try writeProperties(indices, of: changed, key: key, primaryKey: primaryKey)
        return changed
    }

    /// Writes the stored properties of `changed` at `indices` of its property table to the
    /// object with primary key `key`: a key property counts only if it changed, which is refused.
    @inlinable
    func writeProperties<T: PersistentModel>(_ indices: [Int], of changed: T, key: Value, primaryKey: Int) throws {
        let table = T.modelProperties
        if !T._nestsNoClassInstance { try requireStored(T.modelName, primaryKey: key) }
        let properties = try writingInstances(of: T.self) { () throws -> [String: Value] in
            var properties: [String: Value] = Dictionary(minimumCapacity: indices.count)
            for i in indices {
                if i == primaryKey {
                    if try table[i].storedValue(changed).isStoredSame(as: key) { continue }
                    throw _ModelPartialUpdate.primaryKeyChanged(table[i].name, of: T.modelName)
                }
                if table[i].schema.isStored { properties[table[i].name] = try table[i].storedValue(changed) }
            }
            return properties
        }
        if !properties.isEmpty {
            try update(T.modelName, primaryKey: key, properties)
        }
    }

    /// The stored value of `T` with this primary key, created when there is none with the
    /// key and each property's initial value in `T` (a literal one is the schema's default),
    /// as ``Trove/Transaction/getOrCreate(_:primaryKey:)`` creates it: a property with none
    /// holds its schema default or its type's zero (`""`, 0, false, null, `[]`). So does a
    /// class's `lazy` property whose initial value is not a literal: that value may read the
    /// instance, and is not run. A property whose value `T` cannot read (an enum's `""`)
    /// throws, naming it and the decoding error, and nothing is written: give it an initial
    /// value (`initial:` in a table listed by hand), or pass a whole value to ``getOrCreate(_:)``.
    public func getOrCreate<T: PersistentModel, K: StorableProperty>(_ type: T.Type, primaryKey: K) throws -> T {
        if let stored = try object(T.self, primaryKey: primaryKey) { return stored }
        let key = try primaryKey.storedValue()
        let table = T.modelProperties
        let keyName = table[try T.primaryKeyIndex()].name
        let properties = try writingInstances(of: T.self) { () throws -> [String: Value] in
            var properties: [String: Value] = [:]
            for p in table where p.schema.isStored && !p.isPrimaryKey {
                if let initial = p.initialValue { properties[p.name] = try initial() }
            }
            properties[keyName] = key
            // Checked here, before the linked instances the initial values hold are written, so
            // that a refusal writes nothing. Links read as null or empty: they are not resolved.
            do {
                _ = try T.decoded(from: unwrittenObject(T.modelName, properties))
            } catch let error as ModelDecodingError {
                let name = String(error.property.prefix { $0 != "." && $0 != "[" })
                let reason = if let p = table.first(where: { $0.name == name }), p.initialValue == nil, p.schema.defaultValue == nil {
                    "its property '\(name)' has no initial value, and \(error.storedValue) does not read as \(error.expectedType); give it one in \(T.self), or pass a whole value to getOrCreate(_:)"
                } else {
                    "\(error)"
                }
                throw StoreError.invalidArgument("getOrCreate cannot create '\(T.modelName)' with primary key \(key): \(reason)")
            }
            return properties
        }
        // Not the typed path of `insert(_:)` (`ValueTransaction.add`): that writes a whole value,
        // and reshapes one that does not name every stored property, making each optional it
        // leaves out null; these are only the initial values, and every other property gets the
        // schema's default, as the dynamic getOrCreate gives it.
        return try T.decoded(from: insert(T.modelName, properties))
    }

    /// The stored value with `value`'s primary key, or `value` itself, inserted, when there is none.
    public func getOrCreate<T: PersistentModel>(_ value: T) throws -> T {
        if let stored = try object(T.self, primaryKey: T.primaryKeyValue(of: value)) { return stored }
        try insert(value)
        return value
    }
}

extension PersistentModel {
    /// The stored properties of `value`, as property values (a link as its nested object).
    static func storedProperties(of value: Self) throws -> [String: Value] {
        guard case .object(let properties) = try ValueEncoder.encode(value) else {
            throw StoreError.invalidArgument("\(Self.self) must encode as a keyed container to be stored as \(modelName)")
        }
        return properties
    }

    /// The positions in ``modelProperties`` of the stored properties (not linkingObjects).
    @usableFromInline
    static var storedPropertyIndices: [Int] {
        // Once: a table listed by hand may be a computed `static var`.
        let table = modelProperties
        return table.indices.filter { table[$0].schema.isStored }
    }

    static func primaryKeyValue(of value: Self) throws -> Value {
        try primaryKeyProperty().storedValue(value)
    }
}

extension Snapshot {
    func object<T: PersistentModel>(_ type: T.Type, primaryKey: Value) throws -> T? {
        try object(T.modelName, primaryKey: primaryKey).map { try T.decoded(from: $0) }
    }
}
