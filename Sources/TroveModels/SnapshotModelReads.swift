#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

extension Snapshot {
    /// The objects of `T` that `predicate` selects, sorted and paged: the query the predicate
    /// translates to, planned and run as its text would be (indexes included).
    ///
    /// Foundation's `#Predicate` refuses `hasSuffix` at compile time ("The hasSuffix(_:)
    /// function is not supported in this predicate"); a suffix test is `ENDSWITH` in a query
    /// string: `snapshot.objects(Person.modelName, where: "name ENDSWITH $0", .string("son"))`.
    ///
    /// ```swift
    /// let names = try snapshot.objects(Person.self, where: #Predicate { $0.age > 30 && $0.dog?.name == "Rex" },
    ///                                  sortBy: [.init(\.name)], limit: 10).map(\.name)
    /// ```
    ///
    /// A call picks among this, the `#Predicate` overload and the `where:` closure's by its
    /// arguments; a reference that is not a call is ambiguous (the `#Predicate` overload says
    /// how to resolve it).
    ///
    /// Inlinable so that the caller's own type answers which way it goes, with no generic
    /// metadata looked up for the arguments at each call.
    @inlinable
    public func objects<T: PersistentModel>(
        _ type: T.Type, where predicate: Predicate<T>? = nil, sortBy: [ModelSortDescriptor<T>] = [],
        offset: Int = 0, limit: Int? = nil
    ) throws -> ModelResults<T> {
        if let predicate { return try objects(type, where: predicate, sortBy: sortBy, offset: offset, limit: limit) }
        return try fetch(FetchDescriptor(predicate: nil, sortBy: sortBy, fetchOffset: offset, fetchLimit: limit))
    }

    /// The objects of `T` that `predicate` selects, sorted and paged: the overload a
    /// `#Predicate` argument takes, which hands the caller's predicate on as it is (the
    /// optional one's `if let` copies the whole tree).
    ///
    /// A call picks among this, the optional-predicate overload and the `where:` closure's by
    /// its arguments, a trailing closure and any defaulted one left out included. A reference
    /// to the method that is not a call (`let fetch = snapshot.objects`) is ambiguous, as they
    /// share a name, and takes no defaults: give its type, which picks one (the type below picks
    /// this overload), or call it in a closure.
    ///
    /// ```swift
    /// let fetch: (Person.Type, Predicate<Person>, [ModelSortDescriptor<Person>], Int, Int?) throws
    ///     -> ModelResults<Person> = snapshot.objects
    /// let all = try [Person.self].map { try snapshot.objects($0) }
    /// ```
    @inlinable
    public func objects<T: PersistentModel>(
        _ type: T.Type, where predicate: Predicate<T>, sortBy: [ModelSortDescriptor<T>] = [],
        offset: Int = 0, limit: Int? = nil
    ) throws -> ModelResults<T> {
        if sortBy.isEmpty, offset == 0, limit == nil { return try filtered(predicate) }
        return try fetch(FetchDescriptor(predicate: predicate, sortBy: sortBy, fetchOffset: offset, fetchLimit: limit))
    }

    /// The results of `descriptor`.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> ModelResults<T> {
        if descriptor.sortBy.isEmpty, descriptor.fetchOffset == 0, descriptor.fetchLimit == nil {
            switch (descriptor.predicate, descriptor.condition) {
            case (let predicate?, nil): return try filtered(predicate)
            case (nil, let condition?): return try objects(T.self, where: { _ in condition })
            default: break
            }
        }
        try requireModel(T.modelName)
        let (text, arguments) = try descriptor.queryText()
        return ModelResults(try query(text, arguments: arguments))
    }

    /// A filter alone goes the way of `objects(_:where:)`, whose cached template answers an
    /// indexed equality or range without binding or planning the predicate again.
    @usableFromInline
    func filtered<T: PersistentModel>(_ predicate: Predicate<T>) throws -> ModelResults<T> {
        let translated = try PredicateTranslationCache.translate(predicate)
        return ModelResults(try objects(T.modelName, where: translated.text, arguments: translated.arguments))
    }

    /// How many objects `descriptor` selects.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try fetch(descriptor).count
    }

    /// The plan of `descriptor`'s query, as ``Trove/Snapshot/explain(_:arguments:)`` gives it.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> QueryPlan {
        try requireModel(T.modelName)
        let (text, arguments) = try descriptor.queryText()
        return try explain(text, arguments: arguments)
    }

    /// The stored value of `T` with this primary key, or nil.
    ///
    /// Inlinable, so that the read runs specialized for `T` and the key's type.
    @inlinable
    public func object<T: PersistentModel, K: StorableProperty>(_ type: T.Type, primaryKey: K) throws -> T? {
        let key = try primaryKey.storedValue()
        // Read in place; what that path cannot read (or an error) is read again the way whose
        // errors name the model, the property and the type.
        do {
            var value: T?
            try withStoredModelObject(T.modelName, primaryKey: key, type: ObjectIdentifier(T.self), names: T.propertyNames) {
                value = try T(_storedObject: $0)
            }
            return value
        } catch {
            return try decodedObject(T.self, primaryKey: key)
        }
    }

    /// Calls `body` with the object of `model` whose primary key is `primaryKey`, read in
    /// place for the Swift type `type`; not at all when there is none.
    @usableFromInline
    func withStoredModelObject(_ model: String, primaryKey: Value, type: ObjectIdentifier, names: () -> [String],
                               _ body: (_ModelReader) throws -> Void) throws {
        _ = try withStoredObject(model, primaryKey: primaryKey, type: type, names: names) { try body(_ModelReader(object: $0)) }
    }

    /// The stored value of `T` with this primary key read through `Codable`, or nil.
    @usableFromInline
    func decodedObject<T: PersistentModel>(_ type: T.Type, primaryKey: Value) throws -> T? {
        try object(T.modelName, primaryKey: primaryKey).map { try T.decoded(from: $0) }
    }
}

extension Snapshot {
    /// The stored values of `T` with these primary keys, in the order of the keys; keys with
    /// no object are skipped. The typed end of a background write that hands keys back.
    public func objects<T: PersistentModel, K: StorableProperty>(_ type: T.Type, forPrimaryKeys keys: [K]) throws -> [T] {
        try objects(T.modelName, forPrimaryKeys: keys.map { try $0.storedValue() }).map { try T.decoded(from: $0) }
    }
}

extension PersistentModel {
    /// The primary keys of `values`, to hand from a background write to another thread.
    public static func primaryKeys<K: StorableProperty>(of values: [Self], as type: K.Type = K.self) throws -> [K] {
        let property = try primaryKeyProperty()
        return try values.map { value in
            guard let key = value[keyPath: property.keyPath] as? K else {
                throw StoreError.invalidArgument("the primary key '\(property.name)' of \(modelName) is not a \(K.self)")
            }
            return key
        }
    }
}
