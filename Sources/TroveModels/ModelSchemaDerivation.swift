import Trove

extension PersistentModel {
    /// The model as a schema file declares it, derived from the property table.
    public static func modelSchema() throws -> ModelSchema {
        var renamed: [String: String] = [:]
        for property in modelProperties {
            if property.isBareModel {
                throw SchemaError(.invalidType, fileName: nil, path: "\(modelName).\(property.name)",
                                  message: "a link is optional: declare '\(property.name)' as \(property.linkedModel.map { "\($0.modelName)?" } ?? "an optional")")
            }
            if let old = property.originalName { renamed[property.name] = old }
        }
        let primaryKeys = modelProperties.filter(\.isPrimaryKey)
        if primaryKeys.count > 1 {
            throw SchemaError(.invalidPrimaryKey, fileName: nil, path: modelName,
                              message: "one primary key per model: \(primaryKeys.map(\.name).joined(separator: ", ")) are all marked")
        }
        return ModelSchema(name: modelName, primaryKey: primaryKeys.first?.name,
                           properties: modelProperties.map(\.schema), renamed: renamed)
    }
}

extension Schema {
    /// The schema of Swift models, and of every model they link to: the schema a JSON schema
    /// file declaring the same models gives, validated by the same rules.
    ///
    /// ```swift
    /// let store = try Store(path: "people.trove", schema: Schema(Person.self, Dog.self))
    /// print(try Schema(Person.self).jsonText)    // the schema file of these models
    /// ```
    public init(_ models: any PersistentModel.Type..., schemaVersion: Int = 0) throws {
        try self.init(models: models, schemaVersion: schemaVersion)
    }

    /// The schema of `models` and of every model they link to, in that order.
    public init(models: [any PersistentModel.Type], schemaVersion: Int = 0) throws {
        var ordered: [any PersistentModel.Type] = []
        var seen: Set<String> = []
        var pending = models
        while !pending.isEmpty {
            let model = pending.removeFirst()
            guard seen.insert(model.modelName).inserted else { continue }
            ordered.append(model)
            pending.append(contentsOf: model.linkedModels)
        }
        try self.init(schemaVersion: schemaVersion, models: ordered.map { try $0.modelSchema() })
    }
}

extension PersistentModel {
    static var linkedModels: [any PersistentModel.Type] { modelProperties.compactMap(\.linkedModel) }
}
