/// An error from the object store. Each message names the model, property or value at fault.
public enum StoreError: DescribedError, Equatable, Sendable {
    case noSuchModel(String)
    case noSuchProperty(model: String, property: String)
    case typeMismatch(property: String, expected: String, found: String)
    /// A typed accessor (``ObjectValues/string(_:)``, ``ObjectValues/int(_:)``, ...) used on a
    /// property that holds another type: `property` is `Model.property` when the object
    /// knows its model, `holds` the kind of value it holds, `accessor` the one that reads it.
    case wrongAccessor(property: String, holds: String, accessor: String)
    /// A value that cannot become a value of its property.
    case invalidValue(CoercionError)
    case missingPrimaryKey(model: String)
    case duplicatePrimaryKey(model: String, value: String)
    case objectNotFound(model: String, primaryKey: String)
    /// An object of `model` in ``Results`` that the transaction reading them has deleted since.
    case objectDeleted(model: String)
    case noPrimaryKey(model: String)
    case readOnlyProperty(model: String, property: String)
    case nullNotAllowed(model: String, property: String)
    case linkTargetNotFound(property: String, model: String, primaryKey: String)
    case schemaMismatch(String)
    case migrationRequired(String)
    case noSchema(String)
    case readOnly
    case invalidated
    case corruptRecord(String)
    /// The file beneath the store failed (see ``StorageFailure``).
    case storage(StorageFailure)
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .noSuchModel(let m): UnknownModelName.message(m, among: [])
        case let .noSuchProperty(m, p): "model '\(m)' has no property '\(p)'"
        case let .typeMismatch(p, e, f): "property '\(p)' expects \(e), not \(f)"
        case let .wrongAccessor(p, h, a): "'\(p)' holds \(h); read it with \(a)"
        case .invalidValue(let e): e.description
        case .missingPrimaryKey(let m): "an object of '\(m)' needs its primary key"
        case let .duplicatePrimaryKey(m, v): "'\(m)' already has an object with primary key \(v)"
        case let .objectNotFound(m, k): "'\(m)' has no object with primary key \(k)"
        case .objectDeleted(let m): "this object of '\(m)' was deleted after the results holding it were fetched"
        case .noPrimaryKey(let m): "model '\(m)' has no primary key"
        case let .readOnlyProperty(m, p): "'\(m).\(p)' is computed (linkingObjects) and cannot be set"
        case let .nullNotAllowed(m, p): "'\(m).\(p)' cannot be null"
        case let .linkTargetNotFound(p, m, k): "property '\(p)' links to '\(m)' with primary key \(k), which does not exist"
        case .schemaMismatch(let s): s
        case .migrationRequired(let s): s
        case .noSchema(let s): s
        case .readOnly: "the store is read-only"
        case .invalidated: "the read or write this belongs to has ended: use its transaction, results and objects inside it, and fetch an object again by primary key"
        case .corruptRecord(let s): "damaged object record: \(s)"
        case .storage(let failure): failure.description
        case .invalidArgument(let s): s
        }
    }
}

extension StoreError {
    /// The refusal of an update that would change the primary key of an object of `model`
    /// from `current` to `new`: links, lists and a repository's entities find an object by
    /// its key. Every backend refuses it in these words, and so does an ``InMemoryRepository``
    /// given the schema that names the key (``InMemoryRepository/init(schema:)``).
    public static func primaryKeyChanged(model: String, from current: Value, to new: Value) -> StoreError {
        .invalidArgument("the primary key of \(model) cannot be changed (\(current) to \(new))")
    }

    /// The refusal of a write that gives the property `property` of `model` more than once
    /// (``ValueTransaction/update(_:_:)``): which of its values was meant is not known, so
    /// none is taken.
    public static func propertyGivenTwice(model: String, property: String) -> StoreError {
        .invalidArgument("'\(model).\(property)' is given more than once")
    }
}
