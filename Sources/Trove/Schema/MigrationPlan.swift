/// What opening a store with a new schema implies, given the schema stored in it.
///
/// Pure classification: the store applies the plan. See ``Schema/migrationPlan(from:)``.
public struct MigrationPlan: Sendable, Equatable {
    /// What to do with the plan.
    public enum Verdict: Sendable, Equatable {
        /// Nothing differs.
        case unchanged
        /// Only additive changes (or a higher version alone): apply them in the open's transaction.
        case automatic
        /// Changes that are not additive, allowed by a higher `schemaVersion`.
        case migration
        /// Changes that are not additive at an unchanged `schemaVersion`: an error, or a
        /// reset when the store may be deleted if migration is needed.
        case needsHigherVersion
        /// The new `schemaVersion` is lower than the stored one: an error.
        case versionTooLow
    }

    public let oldSchemaVersion: Int
    public let newSchemaVersion: Int
    /// Every difference: models in new-schema order, then removed models.
    public let changes: [SchemaChange]

    public init(oldSchemaVersion: Int, newSchemaVersion: Int, changes: [SchemaChange]) {
        self.oldSchemaVersion = oldSchemaVersion
        self.newSchemaVersion = newSchemaVersion
        self.changes = changes
    }

    /// The changes that need a higher `schemaVersion`.
    public var breakingChanges: [SchemaChange] { changes.filter { !$0.isAdditive } }

    public var verdict: Verdict {
        if newSchemaVersion < oldSchemaVersion { return .versionTooLow }
        if !breakingChanges.isEmpty { return newSchemaVersion > oldSchemaVersion ? .migration : .needsHigherVersion }
        return changes.isEmpty && newSchemaVersion == oldSchemaVersion ? .unchanged : .automatic
    }

    /// Throws unless the plan may be applied as it is.
    public func check() throws(MigrationError) {
        switch verdict {
        case .unchanged, .automatic, .migration:
            return
        case .versionTooLow:
            throw MigrationError(
                verdict: .versionTooLow,
                message: "schemaVersion \(newSchemaVersion) is lower than the store's schemaVersion \(oldSchemaVersion)")
        case .needsHigherVersion:
            let list = breakingChanges.map(\.description).joined(separator: "; ")
            throw MigrationError(
                verdict: .needsHigherVersion,
                message: "the schema changed in ways that need a migration, but schemaVersion is still \(newSchemaVersion) (raise it to \(oldSchemaVersion + 1) or more): \(list)")
        }
    }
}

/// A schema that cannot be applied to a store.
public struct MigrationError: DescribedError, Sendable, Equatable {
    /// ``MigrationPlan/Verdict/versionTooLow`` or ``MigrationPlan/Verdict/needsHigherVersion``.
    public var verdict: MigrationPlan.Verdict
    public var message: String
    public var description: String { message }
}

extension Schema {
    /// The differences from `old`, the schema stored in a store, to this one.
    ///
    /// `renamed` entries apply only when the old name exists in `old` and the new one does
    /// not, so a rename left in a schema file after its migration is harmless.
    public func migrationPlan(from old: Schema) -> MigrationPlan {
        var changes: [SchemaChange] = []
        // New model name for each renamed old model, so link targets compare across the rename.
        var newModelName: [String: String] = [:]
        for model in models {
            if let previous = model.previousName, old[previous] != nil, old[model.name] == nil {
                newModelName[previous] = model.name
            }
        }
        var matchedOld = Set<String>()
        for model in models {
            let oldName = newModelName.first { $0.value == model.name }?.key ?? model.name
            guard let oldModel = old[oldName] else {
                changes.append(.addedModel(model.name))
                continue
            }
            matchedOld.insert(oldName)
            if oldName != model.name { changes.append(.renamedModel(from: oldName, to: model.name)) }
            changes += Self.changes(from: oldModel, to: model, newModelName: newModelName)
        }
        for model in old.models where !matchedOld.contains(model.name) {
            changes.append(.removedModel(model.name))
        }
        return MigrationPlan(oldSchemaVersion: old.schemaVersion, newSchemaVersion: schemaVersion, changes: changes)
    }

    private static func changes(from old: ModelSchema, to new: ModelSchema, newModelName: [String: String]) -> [SchemaChange] {
        let model = new.name
        var changes: [SchemaChange] = []
        var oldNameOf: [String: String] = [:]
        for property in new.properties {
            if let previous = new.previousName(ofProperty: property.name),
               old[property: previous] != nil, old[property: property.name] == nil {
                oldNameOf[property.name] = previous
            } else {
                oldNameOf[property.name] = property.name
            }
        }
        var matched: [String] = []
        for property in new.properties {
            let oldName = oldNameOf[property.name]!
            guard let oldProperty = old[property: oldName] else {
                changes.append(.addedProperty(model: model, property))
                continue
            }
            if oldProperty.isStored && property.isStored { matched.append(oldName) }
            if oldName != property.name {
                changes.append(.renamedProperty(model: model, from: oldName, to: property.name))
            }
            let oldType = oldProperty.type.renamingModels(newModelName)
            if oldType != property.type {
                changes.append(.changedPropertyType(model: model, property: property.name, from: oldType, to: property.type))
            } else if oldProperty.isOptional != property.isOptional {
                changes.append(.changedOptionality(model: model, property: property.name, isOptional: property.isOptional))
            }
            if !PropertySchema.sameDefault(oldProperty.defaultValue, property.defaultValue) {
                changes.append(.changedDefault(model: model, property: property.name, from: oldProperty.defaultValue, to: property.defaultValue))
            }
            switch (old.isIndexed(oldProperty), new.isIndexed(property)) {
            case (false, true): changes.append(.addedIndex(model: model, property: property.name))
            case (true, false): changes.append(.removedIndex(model: model, property: property.name))
            default: break
            }
        }
        let kept = Set(oldNameOf.values)
        for property in old.properties where !kept.contains(property.name) {
            changes.append(.removedProperty(model: model, property))
        }
        let oldPrimaryKey = old.primaryKey.map { key in oldNameOf.first { $0.value == key }?.key ?? key }
        if oldPrimaryKey != new.primaryKey {
            changes.append(.changedPrimaryKey(model: model, from: old.primaryKey, to: new.primaryKey))
        }
        let oldOrder = old.properties.map(\.name).filter { matched.contains($0) }
        if oldOrder != matched {
            changes.append(.reorderedProperties(model: model))
        }
        return changes
    }
}
