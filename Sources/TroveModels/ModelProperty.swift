import Trove

/// One stored property of a ``PersistentModel``: its name, key path and schema.
///
/// `@Model` writes these; a type may also list them by hand:
/// `static let modelProperties: [ModelProperty<Person>] = [.init("id", \Person.id, primaryKey: true)]`.
public struct ModelProperty<Root>: @unchecked Sendable {
    public let name: String
    public let keyPath: PartialKeyPath<Root>
    /// The property as a schema file declares it.
    public let schema: PropertySchema
    public let isPrimaryKey: Bool
    /// The name the property had before, to carry its data across a rename.
    public let originalName: String?
    /// The model a link or list of links points to, or that linkingObjects come from.
    public let linkedModel: (any PersistentModel.Type)?
    /// Whether the Swift type is a model itself, not an optional of one (a link must be optional).
    let isBareModel: Bool
    /// Whether a value of the property is or holds a class instance: its Swift type is a class
    /// (a class model, or a property type of its own), or a value type with one in a field, an
    /// element or an enum payload (``ClassInstanceTypes``). Found once, when the table is made.
    let holdsClassInstance: Bool
    /// The property's value in a model value, as a write stores it (a link as its nested object).
    @usableFromInline let storedValue: (Root) throws -> Value
    /// The stored value of the property's Swift initial value when that is not a literal (so
    /// not a schema default), such as `.happy` or `Date()`: what a model created from its
    /// primary key alone holds, as Swift's initializer would give it.
    let initialValue: (() throws -> Value)?

    /// A stored property; its schema type follows from `V`.
    ///
    /// `default:` is the schema's default, which every insert that omits the property gets.
    /// `initial:` gives the value of a model created from its primary key alone
    /// (``Trove/Transaction/getOrCreate(_:primaryKey:)``) when the schema cannot hold it as a
    /// default (`.happy`, `Date()`); a property with neither gets its type's zero there.
    public init<V: StorableProperty>(
        _ name: String, _ keyPath: KeyPath<Root, V>, primaryKey: Bool = false, indexed: Bool = false,
        default defaultValue: V? = nil, originalName: String? = nil, initial: (() -> V)? = nil
    ) {
        self.name = name
        self.keyPath = keyPath
        let stored = V.storedPropertyType
        self.schema = PropertySchema(
            name: name, type: stored.type, isOptional: stored.isOptional, isIndexed: indexed,
            defaultValue: defaultValue.flatMap { try? $0.storedValue() })
        self.isPrimaryKey = primaryKey
        self.originalName = originalName
        self.linkedModel = V._linkedModel
        self.isBareModel = V.self is any PersistentModel.Type
        self.holdsClassInstance = ClassInstanceTypes.holdsInstance(V.self)
        self.storedValue = { try $0[keyPath: keyPath]._writtenValue() }
        self.initialValue = initial.map { initial in { try initial()._writtenValue() } }
    }

    /// A linkingObjects property: the objects of `V` whose link or list `origin` points here.
    public init<V: PersistentModel>(_ name: String, linkingObjects keyPath: KeyPath<Root, [V]>, origin: String) {
        self.name = name
        self.keyPath = keyPath
        self.schema = PropertySchema(name: name, type: .linkingObjects(V.modelName, property: origin))
        self.isPrimaryKey = false
        self.originalName = nil
        self.linkedModel = V.self
        self.isBareModel = false
        // A linked value reads them empty.
        self.holdsClassInstance = false
        self.storedValue = { _ in .list([]) }
        self.initialValue = nil
    }
}
