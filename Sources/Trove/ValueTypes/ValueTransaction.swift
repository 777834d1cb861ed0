/// The writes of a ``Container``, in terms of ``Persistable`` values; one commit.
public struct ValueTransaction {
    /// The underlying transaction, for anything values cannot express.
    public let transaction: Transaction

    package init(_ transaction: Transaction) { self.transaction = transaction }

    /// Stores `value` and the values it links to. With `update: false` an existing primary
    /// key is an error; with `update: true` the stored object is replaced by `value`
    /// (optional properties it leaves nil become null). Linked values are upserted either way.
    public func add<T: Persistable>(_ value: T, update: Bool = false) throws {
        let m = try transaction.model(T.modelName)
        let properties = try ValueMapping.properties(of: value, model: m)
        if update { try transaction.upsert(m.name, properties) } else { try transaction.insert(m.name, properties) }
    }

    /// Stores a value of `model` given as its property values (a link as its nested object),
    /// as ``add(_:update:)`` stores the value they encode.
    package func add(_ model: String, properties: [String: Value], update: Bool) throws {
        let m = try transaction.model(model)
        let shaped = ValueMapping.shape(properties, model: m)
        if update { try transaction.upsert(m.name, shaped) } else { try transaction.insert(m.name, shaped) }
    }

    /// Stores a value given as its property values, as ``add(_:properties:update:)`` does,
    /// when the Swift type `type` writes them: if `writesWhole` says that its values name
    /// every stored property of the model, and those of their nested objects every stored
    /// property of theirs, they are stored as given, not reshaped. Asked once per store
    /// layout and type.
    package func add(_ model: String, properties: [String: Value], update: Bool, writtenBy type: ObjectIdentifier,
                     writesWhole: (StoredModels) -> Bool) throws {
        let m = try transaction.model(model)
        let whole = writesWholeObjects(m, type, writesWhole, remembered: &transaction.lastWholeWrite)
        let shaped = whole ? properties : ValueMapping.shape(properties, model: m)
        if update { try transaction.upsert(m.name, shaped) } else { try transaction.insert(m.name, shaped) }
    }

    /// Stores a value given as its property values, as ``add(_:properties:update:writtenBy:writesWhole:)``
    /// upserts it, as the nested object of a link met at link depth `depth`: nothing is read
    /// back, and the same values written so already in the transaction are not written again.
    package func addNested(_ model: String, properties: [String: Value], writtenBy type: ObjectIdentifier,
                           writesWhole: (StoredModels) -> Bool, depth: Int) throws -> ObjectReference {
        let m = try transaction.model(model)
        return try transaction.writeNested(m.name, nestedValues(m, properties, type, writesWhole), depth: depth)
    }

    /// Whether ``addNested(_:properties:writtenBy:writesWhole:depth:)`` of these values would
    /// write nothing: the values it writes (shaped, for a type that does not write whole
    /// objects) were written so already in this transaction, with this primary key. The
    /// values are shaped only once the transaction is known to have written that key.
    package func wroteNested(_ model: String, primaryKey: Value, properties: [String: Value], writtenBy type: ObjectIdentifier,
                             writesWhole: (StoredModels) -> Bool) -> Bool {
        transaction.wroteNested(model, primaryKey: primaryKey) { nestedValues($0, properties, type, writesWhole) }
    }

    /// The values a nested write of `type`'s `properties` stores.
    private func nestedValues(_ m: ModelLayout, _ properties: [String: Value], _ type: ObjectIdentifier,
                              _ writesWhole: (StoredModels) -> Bool) -> [String: Value] {
        // Not through `lastWholeWrite`, which the write linking to this value keeps.
        let whole = writesWholeObjects(m, type, writesWhole, remembered: &transaction.lastNestedWholeWrite)
        return whole ? properties : ValueMapping.shape(properties, model: m)
    }

    /// Whether `type`'s values of `m` name every stored property (see
    /// ``add(_:properties:update:writtenBy:writesWhole:)``): the answer `last` holds when it
    /// is for this type and model, so that a loop writing one type asks again without a lock.
    private func writesWholeObjects(_ m: ModelLayout, _ type: ObjectIdentifier, _ writesWhole: (StoredModels) -> Bool,
                                    remembered last: inout (type: ObjectIdentifier, model: ModelLayout, whole: Bool)?) -> Bool {
        if let last, last.type == type, last.model === m { return last.whole }
        let whole = m.typedSlots.writesWhole(type) { writesWhole(StoredModels(layout: transaction.layout)) }
        last = (type, m, whole)
        return whole
    }

    /// Stores each value, as ``add(_:update:)``.
    public func add<S: Sequence>(_ values: S, update: Bool = false) throws where S.Element: Persistable {
        for v in values { try add(v, update: update) }
    }

    /// Sets only the given properties of the stored value whose primary key is among them:
    /// `tx.update(Character.self, [.identifier(1455), .realName("Anthony Edward Stark")])`.
    /// Throws ``StoreError/objectNotFound(model:primaryKey:)`` if there is no such value, and
    /// ``StoreError/propertyGivenTwice(model:property:)`` for a property given twice, which
    /// has no one value to set (given twice, the primary key names no one value).
    @discardableResult
    public func update<T: Persistable>(_ type: T.Type, _ values: [T.PropertyValue]) throws -> [String] {
        let m = try transaction.model(T.modelName)
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        var properties: [String: Value] = Dictionary(minimumCapacity: values.count)
        for v in values {
            let (name, value) = v.propertyValuePair
            if properties.updateValue(value, forKey: name) != nil {
                throw StoreError.propertyGivenTwice(model: m.name, property: name)
            }
        }
        guard let key = properties.removeValue(forKey: pk.name) else { throw StoreError.missingPrimaryKey(model: m.name) }
        return try transaction.update(m.name, primaryKey: key, properties)
    }

    /// Deletes the stored value with `value`'s primary key; false if there was none.
    @discardableResult
    public func delete<T: Persistable>(_ value: T) throws -> Bool {
        let m = try transaction.model(T.modelName)
        guard let pk = m.primaryKey else { throw StoreError.noPrimaryKey(model: m.name) }
        guard case .object(let dict) = try ValueEncoder.encode(value), let key = dict[pk.name] else {
            throw StoreError.missingPrimaryKey(model: m.name)
        }
        return try transaction.delete(m.name, primaryKey: key)
    }

    /// Deletes the stored value with this primary key; false if there was none.
    @discardableResult
    public func delete<T: Persistable>(_ type: T.Type, primaryKey: Value) throws -> Bool {
        try transaction.delete(T.modelName, primaryKey: primaryKey)
    }

    /// Deletes every stored value of the type; returns how many.
    @discardableResult
    public func deleteAll<T: Persistable>(_ type: T.Type) throws -> Int {
        try transaction.deleteAll(T.modelName)
    }
}
