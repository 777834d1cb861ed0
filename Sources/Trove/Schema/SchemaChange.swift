/// One difference between a stored schema and a new one.
///
/// ``isAdditive`` changes apply automatically when a store opens; the others need a higher
/// `schemaVersion` (see `schema-format.md`, "Migrations"). Model and property names are the
/// new ones, except in removals and in `from:` of renames.
public enum SchemaChange: Sendable, Equatable, CustomStringConvertible {
    case addedModel(String)
    case removedModel(String)
    case renamedModel(from: String, to: String)
    case addedProperty(model: String, PropertySchema)
    case removedProperty(model: String, PropertySchema)
    case renamedProperty(model: String, from: String, to: String)
    case changedPropertyType(model: String, property: String, from: PropertyType, to: PropertyType)
    case changedOptionality(model: String, property: String, isOptional: Bool)
    case changedDefault(model: String, property: String, from: Value?, to: Value?)
    case addedIndex(model: String, property: String)
    case removedIndex(model: String, property: String)
    case changedPrimaryKey(model: String, from: String?, to: String?)
    /// Stored properties kept, in another order: only display order changes.
    case reorderedProperties(model: String)

    /// Whether the change applies without a higher `schemaVersion`: it loses no data and
    /// every existing object stays valid.
    public var isAdditive: Bool {
        switch self {
        case .addedModel, .addedIndex, .removedIndex, .changedDefault, .reorderedProperties:
            true
        case .addedProperty(_, let p):
            // Existing objects get null, the default, an empty list, or nothing (computed).
            p.isOptional || p.defaultValue != nil || p.type.isList || p.type.isLinkingObjects
        case .removedProperty(_, let p):
            !p.isStored
        case .changedPropertyType(_, _, let from, let to):
            from.isStorageEquivalent(to: to) || (from.isLinkingObjects && to.isLinkingObjects)
        case .removedModel, .renamedModel, .renamedProperty, .changedOptionality, .changedPrimaryKey:
            false
        }
    }

    public var description: String {
        func pk(_ name: String?) -> String { name.map { "'\($0)'" } ?? "none" }
        switch self {
        case .addedModel(let m): return "model '\(m)' added"
        case .removedModel(let m): return "model '\(m)' removed"
        case .renamedModel(let from, let to): return "model '\(from)' renamed to '\(to)'"
        case .addedProperty(let m, let p):
            // Without a value for the objects already stored, the addition needs a migration;
            // say how to make it additive, the change most users mean.
            return isAdditive ? "property '\(m).\(p.name)' (\(p.typeString)) added"
                : "property '\(m).\(p.name)' (\(p.typeString)) added, required and without a default (give it a default or make it optional to add it without a migration)"
        case .removedProperty(let m, let p): return "property '\(m).\(p.name)' removed"
        case .renamedProperty(let m, let from, let to): return "property '\(m).\(from)' renamed to '\(to)'"
        case .changedPropertyType(let m, let p, let from, let to):
            return "property '\(m).\(p)' changed type from \(from) to \(to)"
        case .changedOptionality(let m, let p, let isOptional):
            return "property '\(m).\(p)' made \(isOptional ? "optional" : "required")"
        case .changedDefault(let m, let p, _, _): return "default of '\(m).\(p)' changed"
        case .addedIndex(let m, let p): return "index on '\(m).\(p)' added"
        case .removedIndex(let m, let p): return "index on '\(m).\(p)' removed"
        case .changedPrimaryKey(let m, let from, let to):
            return "primary key of '\(m)' changed from \(pk(from)) to \(pk(to))"
        case .reorderedProperties(let m): return "properties of '\(m)' reordered"
        }
    }
}
