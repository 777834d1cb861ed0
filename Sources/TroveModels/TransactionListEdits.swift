import Trove

/// List mutations that write one list: the stored list of the object with the owner's primary
/// key is edited, whatever the owner value's own copy of the list holds, and nothing else of
/// the object (nor the objects a list of links holds) is written.
///
/// ```swift
/// try tx.append(rex, to: \.dogs, of: person)          // links Rex, inserting him if he is new
/// try tx.move(from: 0, to: 2, in: \.tags, of: person)
/// ```
///
/// ``update(_:_:)`` instead writes the whole list the closure leaves, and upserts every
/// object of a list of links.
extension Transaction {
    /// Adds `element` at the end of the stored list.
    public func append<T: PersistentModel, E: StorableProperty>(_ element: E, to list: KeyPath<T, [E]>, of owner: T) throws {
        try editList(owner, list, .append(listElement(element)))
    }

    /// Adds `element` at `index` (`0...count`) of the stored list.
    public func insert<T: PersistentModel, E: StorableProperty>(_ element: E, at index: Int, into list: KeyPath<T, [E]>, of owner: T) throws {
        try editList(owner, list, .insert(listElement(element), at: index))
    }

    /// Removes the element at `index` of the stored list.
    public func remove<T: PersistentModel, E: StorableProperty>(at index: Int, from list: KeyPath<T, [E]>, of owner: T) throws {
        try editList(owner, list, .remove(at: index))
    }

    /// Takes the element at `source` out of the stored list and puts it back at `destination`,
    /// as Realm's `List.move(from:to:)` does.
    public func move<T: PersistentModel, E: StorableProperty>(from source: Int, to destination: Int, in list: KeyPath<T, [E]>, of owner: T) throws {
        try editList(owner, list, .move(from: source, to: destination))
    }

    private func editList<T: PersistentModel, E>(_ owner: T, _ list: KeyPath<T, [E]>, _ edit: ListEdit) throws {
        guard let property = T.property(for: list), property.schema.isStored else { throw T.unknownProperty(list) }
        try editList(T.modelName, primaryKey: T.primaryKeyValue(of: owner), property.name, edit)
    }

    /// A scalar as stored; a model by its primary key, inserted first when it is not stored.
    private func listElement<E: StorableProperty>(_ element: E) throws -> Value {
        guard let model = element as? any PersistentModel else { return try element.storedValue() }
        return try linkedKey(model)
    }

    private func linkedKey<M: PersistentModel>(_ model: M) throws -> Value {
        let key = try M.primaryKeyValue(of: model)
        if try object(M.modelName, primaryKey: key) == nil { try insert(model) }
        return key
    }
}
