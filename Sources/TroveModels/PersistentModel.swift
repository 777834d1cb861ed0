import Trove

/// A Swift type stored as a model of a Trove store, with a table of its stored properties.
///
/// Write `@Model` on a struct or a final class and the compiler derives the table; the
/// schema, typed queries (`#Predicate`), sorts by key path and partial updates all read it:
///
/// ```swift
/// @Model struct Person {
///     @Attribute(.primaryKey) var id: Int
///     @Attribute(.indexed) var name: String
///     var age: Int = 0
///     var dog: Dog?
/// }
/// let adults = try snapshot.objects(Person.self, where: #Predicate { $0.age >= 18 })
/// ```
///
/// A link is a nested model value and a list an array.
///
/// A class model (`@Model final class Person`) has what a struct model has, and its instances
/// are values in the same way: each read makes new instances of what the store held then (a
/// link read twice is two instances), and the store neither watches nor changes them.
/// Coming from SwiftData or Realm: nothing is saved by changing an instance (write it with
/// `insert`, `upsert` or `update` in a transaction; outside a `Repository` there is no auto-save and no context),
/// a later commit does not show in an instance read before it (read again, or use
/// `LiveResults` or `ObjectObserver`), and identity is the primary key, not the instance
/// (`===` tells two reads of one object apart). A write stores each linked instance once,
/// however many places link to it. Links between instances must not form a cycle, or a
/// chain of more than 32 links, when written (`a.friend = b; b.friend = a` throws): reads
/// follow links that deep, so such a graph stored by separate writes cannot be read as a
/// typed value either. Subclasses are not models: `@Model` refuses a class that is not
/// `final` or that has a superclass.
///
/// `@Model` also writes the code that
/// reads, compares and writes values property by property: the requirements whose names
/// start with `_` are those hooks, public only so that the macro's expansion can reach them,
/// and not for calling. A type whose table is listed by hand implements none of them and is
/// read and written through its `Codable` conformance (see ``Trove/Persistable``).
public protocol PersistentModel: Persistable, StorableProperty {
    /// The stored properties, in declared order: names, key paths and attributes.
    static var modelProperties: [ModelProperty<Self>] { get }
    /// The value of a stored object, read property by property in the order of
    /// ``modelProperties``: `@Model` writes it. A type without one reads through `Codable`.
    @_documentation(visibility: internal)
    init(_storedObject: _ModelReader) throws
    /// The positions in ``modelProperties`` of the stored properties whose values differ
    /// between `old` and `new`: what a partial update writes. `@Model` writes it, comparing
    /// property by property; a type without one compares the values' encodings.
    @_documentation(visibility: internal)
    static func _changedProperties(from old: Self, to new: Self) throws -> [Int]
    /// What a partial update from `old` to `new` writes: `old`'s primary key and the stored
    /// properties whose values differ. `@Model` writes it for a model with a primary key,
    /// comparing and reading property by property; nil (a type without one) has the update
    /// compare through ``_changedProperties(from:to:)`` and the table.
    @_documentation(visibility: internal)
    static func _partialUpdate(from old: Self, to new: Self) throws -> _ModelPartialUpdate?
    /// The stored properties of `value` by name, as a write stores them (links as nested
    /// objects). `@Model` writes it; a type without one encodes the value.
    @_documentation(visibility: internal)
    static func _writtenProperties(of value: Self) throws -> _ModelPropertyValues
    /// Whether ``_writtenProperties(of:)`` names every property of ``modelProperties`` that
    /// is stored (not linkingObjects), whatever the value: `@Model` writes `true`.
    @_documentation(visibility: internal)
    static var _writesEveryProperty: Bool { get }
    /// The key paths of ``modelProperties`` from an optional of the model, in the table's
    /// order (`\Project?.?.title`): appended to a key path of a link to the model, they
    /// give the key paths through it (`\Task.project?.title`). `@Model` writes them; a
    /// table listed by hand has none, and key paths through links to it are not named.
    @_documentation(visibility: internal)
    static var _chainedKeyPaths: [AnyKeyPath] { get }
    /// Whether no value of the type holds a class instance: the type is a struct, no stored
    /// property's type is a class (a class model, or a property type of its own) or a value
    /// type holding one (in a field, an element, or a payload of an enum that is not trivial:
    /// ``ClassInstanceTypes``), and the same holds of every model its links and lists of
    /// links reach. A read-only snapshot keeps the values that links point at only for such
    /// a type, as an instance kept would be shared by every value read after (writes ask
    /// ``_nestsNoClassInstance``). `@Model` writes it, found once per type; a table listed by
    /// hand finds it each time it is asked. A `@Transient` property is in no table, so not
    /// seen: an instance it holds in a kept value is shared by the reads of that value.
    @_documentation(visibility: internal)
    static var _holdsNoClassInstance: Bool { get }
    /// Whether a write of a value nests no class instance: the type is a struct and no model
    /// its links and lists of links reach is a class. Such a write builds its properties as
    /// they are, with no scope for nested instances and no check first that an updated object
    /// is there. A property whose type is a class but no model (which
    /// ``_holdsNoClassInstance`` counts) is stored as its value and nests nothing. `@Model`
    /// writes it, found once per type; a table listed by hand finds it each time it is asked.
    @_documentation(visibility: internal)
    static var _nestsNoClassInstance: Bool { get }
}

/// A model value's stored properties by name, as a write stores them.
@_documentation(visibility: internal)
public typealias _ModelPropertyValues = [String: Value]

extension PersistentModel {
    /// A model value stands for a to-one link: always optional in the schema.
    public static var storedPropertyType: StoredPropertyType {
        StoredPropertyType(type: .link(modelName), isOptional: true)
    }

    @_documentation(visibility: internal)
    public static var _linkedModel: (any PersistentModel.Type)? { Self.self }

    /// A model value has no value of its own in a query: compare its primary key instead.
    public func storedValue() throws -> Value {
        throw ModelQueryError("a \(Self.modelName) value is not a query constant: compare a property of the link (\\.owner?.id == id)")
    }

    @_documentation(visibility: internal)
    public static func _changedProperties(from old: Self, to new: Self) throws -> [Int] {
        let before = try storedProperties(of: old)
        let after = try storedProperties(of: new)
        return modelProperties.indices.filter { i in
            modelProperties[i].schema.isStored && before[modelProperties[i].name] != after[modelProperties[i].name]
        }
    }

    @_documentation(visibility: internal)
    public static func _writtenProperties(of value: Self) throws -> _ModelPropertyValues {
        try storedProperties(of: value)
    }

    @_documentation(visibility: internal)
    @inlinable
    public static func _partialUpdate(from old: Self, to new: Self) throws -> _ModelPartialUpdate? { nil }

    /// An encoding may leave out what it holds as nil.
    @_documentation(visibility: internal)
    public static var _writesEveryProperty: Bool { false }

    @_documentation(visibility: internal)
    public static var _chainedKeyPaths: [AnyKeyPath] { [] }

    @_documentation(visibility: internal)
    public static var _holdsNoClassInstance: Bool { _reachesNoClassInstance() }

    @_documentation(visibility: internal)
    public static var _nestsNoClassInstance: Bool { _reachesNoClassModel() }

    /// Whether this type and every model its stored links and lists of links reach are
    /// structs whose stored properties hold no class instance: ``_holdsNoClassInstance``,
    /// found by following the property tables. A model met again (a struct's `[Self]`) adds
    /// nothing. LinkingObjects are left out: a linked value reads them empty.
    @_documentation(visibility: internal)
    public static func _reachesNoClassInstance() -> Bool {
        var visited: Set<ObjectIdentifier> = []
        return reachesNoClass(countingHeldInstances: true, &visited)
    }

    /// Whether this type and every model its stored links and lists of links reach are
    /// structs: ``_nestsNoClassInstance``, found as ``_reachesNoClassInstance()`` is.
    @_documentation(visibility: internal)
    public static func _reachesNoClassModel() -> Bool {
        var visited: Set<ObjectIdentifier> = []
        return reachesNoClass(countingHeldInstances: false, &visited)
    }

    static func reachesNoClass(countingHeldInstances: Bool, _ visited: inout Set<ObjectIdentifier>) -> Bool {
        if Self.self is AnyClass { return false }
        guard visited.insert(ObjectIdentifier(Self.self)).inserted else { return true }
        for property in modelProperties where property.schema.isStored {
            if countingHeldInstances && property.holdsClassInstance { return false }
            if let linked = property.linkedModel,
               !linked.reachesNoClass(countingHeldInstances: countingHeldInstances, &visited) { return false }
        }
        return true
    }

    /// Whether a write of a value stores its properties as they are written: they name every
    /// stored property of the model in `models`, and so do those of each linked model. A type
    /// met again down a cycle of links is taken as whole, its own check being under way.
    static func writesWholeObjects(in models: StoredModels) -> Bool {
        var visiting: Set<ObjectIdentifier> = []
        return writesWholeObjects(in: models, visiting: &visiting)
    }

    static func writesWholeObjects(in models: StoredModels, visiting: inout Set<ObjectIdentifier>) -> Bool {
        guard visiting.insert(ObjectIdentifier(Self.self)).inserted else { return true }
        guard _writesEveryProperty, let stored = models.storedProperties(of: modelName) else { return false }
        let written = modelProperties.filter { $0.schema.isStored }
        let targets = Dictionary(stored.map { ($0.name, $0.target) }, uniquingKeysWith: { a, _ in a })
        guard written.count == stored.count, Set(written.map(\.name)) == Set(targets.keys) else { return false }
        for property in written {
            guard let linked = property.linkedModel else { continue }
            guard targets[property.name] == linked.modelName, linked.writesWholeObjects(in: models, visiting: &visiting) else { return false }
        }
        return true
    }

    /// A link is written as its nested object, which the write upserts.
    @_documentation(visibility: internal)
    public func _writtenValue() throws -> Value { .object(try Self._writtenProperties(of: self)) }

    /// A link stores the same when its value encodes the same.
    @_documentation(visibility: internal)
    public static func _storedEqual(_ a: Self, _ b: Self) -> Bool {
        if Self.self is AnyClass, (a as AnyObject) === (b as AnyObject) { return true }
        guard let a = try? storedProperties(of: a), let b = try? storedProperties(of: b) else { return false }
        return Value.object(a).isStoredSame(as: .object(b))
    }

    /// Whether two values of a property store the same, for the comparisons `@Model` writes.
    /// Inlinable, so that the comparisons `@Model` writes are specialized for each type.
    @inlinable
    @_documentation(visibility: internal)
    public static func _storedPropertyEqual<V: StorableProperty>(_ a: V, _ b: V) -> Bool {
        V._storedEqual(a, b)
    }

    /// The property whose key path is `keyPath`, if it is stored.
    static func property(for keyPath: AnyKeyPath) -> ModelProperty<Self>? {
        modelProperties.first { $0.keyPath == keyPath }
    }

    /// The schema and linked model of the stored property `keyPath`, or an error naming the model.
    static func _storedProperty(_ keyPath: AnyKeyPath) throws -> (schema: PropertySchema, linkedModel: (any PersistentModel.Type)?) {
        guard let property = property(for: keyPath) else { throw unknownProperty(keyPath) }
        return (property.schema, property.linkedModel)
    }

    static func unknownProperty(_ keyPath: AnyKeyPath) -> ModelQueryError {
        ModelQueryError("\(keyPathName(keyPath)) is not a stored property of \(modelName); only properties of the model table (not computed or @Transient ones) can be queried")
    }


    /// The primary-key property, or an error when the model has none.
    static func primaryKeyProperty() throws -> ModelProperty<Self> {
        try modelProperties[primaryKeyIndex()]
    }

    /// The position of the primary key in ``modelProperties``: each entry's flag read in
    /// place, where a search by key path applies the key path to each entry and a loop over
    /// the array copies each entry out.
    @inlinable
    static func primaryKeyIndex() throws -> Int {
        let index = modelProperties.withUnsafeBufferPointer { table in
            table.indices.first { table[$0].isPrimaryKey }
        }
        guard let index else { throw StoreError.noPrimaryKey(model: modelName) }
        return index
    }
}

extension PersistentModel where Self: AnyObject {
    /// A link to a class instance is written as its nested object, as a struct's is, or, in
    /// a transaction's write, as its primary key after an upsert of its own. Links between
    /// instances can form a cycle (`a.friend = b; b.friend = a`), which nesting would follow
    /// without end, and can share an instance (a diamond), which nesting would write once per
    /// path: one write remembers the instances on the current path, to refuse a cycle, and
    /// what each instance it has met is written as, to write it once (``NestedClassWrites``).
    @_documentation(visibility: internal)
    public func _writtenValue() throws -> Value {
        if let writes = NestedClassWrites.current { return try writes.value(of: self) }
        let writes = NestedClassWrites(writingIn: nil)
        return try NestedClassWrites.$current.withValue(writes) { try writes.value(of: self) }
    }

    /// Whether `a` and `b` store the same values: the same instance does; otherwise
    /// `compare` decides, and a pair met again inside its own comparison (a cycle) counts as
    /// equal there, so that comparing two cyclic graphs ends.
    @_documentation(visibility: internal)
    public static func _storedInstancesEqual(_ a: Self, _ b: Self, _ compare: () -> Bool) -> Bool {
        if a === b { return true }
        if let compared = ComparedInstances.current { return compared.equal(a, b, compare) }
        let compared = ComparedInstances()
        return ComparedInstances.$current.withValue(compared) { compared.equal(a, b, compare) }
    }

    /// Called last by the initializers `@Model` writes in a class, so that in a subclass, whose
    /// initializers must call `super.init` before using `self`, the compiler's error names it.
    @_documentation(visibility: internal)
    @inlinable @inline(__always)
    public func _modelClassMustNotHaveASuperclass() {}
}

/// `keyPath` as every error names it: a stored Swift property by its key path; a computed
/// one, which Linux prints as an address (`\Person.<computed 0x… (String)>`) and no table can
/// name, as what it is. The test is on the runtime's description text, `<computed `.
func keyPathName(_ keyPath: AnyKeyPath) -> String {
    "\(keyPath)".contains("<computed ") ? "a computed property (\(type(of: keyPath).valueType))" : "\(keyPath)"
}
