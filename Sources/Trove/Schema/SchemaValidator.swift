/// The rules of a schema that span properties and models, checked for every ``Schema``
/// whether it came from a file or from code.
struct SchemaValidator {
    let fileName: String?

    /// Words that name types cannot name models: `"string"` would be ambiguous as a type.
    /// A lookup, not a set: every open validates its stored schema, and a set of these words
    /// is built and hashed once per process for a handful of names.
    static func isReservedModelName(_ name: String) -> Bool {
        name == "linkingObjects" || PropertyType(scalarName: name) != nil
    }

    func error(_ kind: SchemaError.Kind, _ path: String, _ message: String) -> SchemaError {
        SchemaError(kind, fileName: fileName, path: path, message: message)
    }

    func error(_ kind: SchemaError.Kind, _ location: SchemaLocation, _ message: String) -> SchemaError {
        error(kind, location.text, message)
    }

    static func unknownType(_ name: String, path: String, fileName: String?, modelNames: some Sequence<String>) -> SchemaError {
        let candidates = PropertyType.scalarTypes.compactMap(\.scalarName) + modelNames.sorted()
        return SchemaError(.unknownType, fileName: fileName, path: path,
                           message: "unknown type '\(name)': neither a built-in type nor a model of this schema\(NameSuggestion.hint(for: name, among: candidates))")
    }

    func validate(schemaVersion: Int, models: [ModelSchema]) throws(SchemaError) {
        if schemaVersion < 0 {
            throw error(.invalidSchemaVersion, "schemaVersion", "schemaVersion must be a non-negative integer, found \(schemaVersion)")
        }
        var indexByName: [String: Int] = [:]
        for (i, model) in models.enumerated() {
            let path = SchemaLocation.model(i) + ".name"
            guard SchemaName.isValid(model.name, underscoreFirst: false) else {
                throw error(.invalidModelName, path, "invalid model name \(JSONValue.string(model.name).jsonText): a model name starts with a letter and has only letters, digits and '_'")
            }
            if Self.isReservedModelName(model.name) {
                throw error(.invalidModelName, path, "'\(model.name)' is a type name and cannot name a model")
            }
            if let first = indexByName[model.name] {
                throw error(.duplicateModel, path, "duplicate model name '\(model.name)' (first defined at \(SchemaPath.model(first)))")
            }
            indexByName[model.name] = i
        }
        for (i, model) in models.enumerated() {
            try validate(model, index: i, models: models, indexByName: indexByName)
        }
    }

    func validate(_ model: ModelSchema, index i: Int, models: [ModelSchema], indexByName: [String: Int]) throws(SchemaError) {
        let modelPath = SchemaLocation.model(i)
        if model.properties.isEmpty {
            throw error(.emptyModel, modelPath + ".properties", "model '\(model.name)' has no properties")
        }
        // Few properties are searched linearly: hashing every name costs more at open.
        var seen: Set<String>? = model.properties.count > 16 ? [] : nil
        for (n, property) in model.properties.enumerated() {
            let path = SchemaLocation.property(i, property.name)
            guard SchemaName.isValid(property.name, underscoreFirst: true) else {
                throw error(.invalidPropertyName, path, "invalid property name \(JSONValue.string(property.name).jsonText): a property name starts with a letter or '_' and has only letters, digits and '_'")
            }
            let isNew = seen == nil ? !model.properties[..<n].contains { $0.name == property.name }
                                    : seen!.insert(property.name).inserted
            guard isNew else {
                throw error(.duplicateProperty, path, "duplicate property '\(property.name)' in model '\(model.name)'")
            }
            try validate(property, of: model, path: path, models: models, indexByName: indexByName)
        }
        if let key = model.primaryKey {
            let path = modelPath + ".primaryKey"
            guard let property = model[property: key] else {
                throw error(.invalidPrimaryKey, path, "primary key '\(key)' is not a property of '\(model.name)'\(NameSuggestion.hint(for: key, among: model.properties.map(\.name)))")
            }
            guard property.type.canBePrimaryKey else {
                throw error(.invalidPrimaryKey, path, "primary key '\(key)' has type \(property.typeString); a primary key is int, int8, int16, int32, int64, string or uuid")
            }
            if property.defaultValue != nil {
                throw error(.invalidPrimaryKey, SchemaLocation.property(i, key) + ".default", "primary key '\(key)' cannot have a default: every object needs its own value")
            }
        }
        try validateRenames(of: model, index: i, indexByName: indexByName)
    }

    func validate(_ property: PropertySchema, of model: ModelSchema, path: SchemaLocation, models: [ModelSchema], indexByName: [String: Int]) throws(SchemaError) {
        switch property.type {
        case .link(let target):
            guard indexByName[target] != nil else { throw Self.unknownType(target, path: path.text, fileName: fileName, modelNames: indexByName.keys) }
            if !property.isOptional {
                throw error(.invalidOptionality, path, "a to-one link is always optional (it is null until set, as in Realm)")
            }
        case .list(let element):
            switch element {
            case .link(let target):
                guard indexByName[target] != nil else { throw Self.unknownType(target, path: path.text, fileName: fileName, modelNames: indexByName.keys) }
                if property.isOptional {
                    throw error(.invalidOptionality, path, "a list of links cannot contain null; write \"\(target)[]\"")
                }
            case .list:
                throw error(.invalidType, path, "lists of lists are not supported")
            case .linkingObjects:
                throw error(.invalidType, path, "a list cannot hold linkingObjects")
            default:
                break
            }
        case .linkingObjects(let source, let sourceProperty):
            try validateLinkingObjects(property, of: model, source: source, sourceProperty: sourceProperty, path: path, models: models, indexByName: indexByName)
        default:
            break
        }
        if property.isIndexed && !property.type.canBeIndexed {
            let what = property.type.isList ? "a list" : property.type.isLink ? "a link" : property.type.isLinkingObjects ? "linkingObjects" : "a \(property.type) property"
            throw error(.invalidIndex, path + ".indexed", "\(what) cannot be indexed; indexes exist for bool, int, int8, int16, int32, int64, string, date and uuid properties")
        }
        if let value = property.defaultValue {
            if !property.type.isScalar {
                throw error(.invalidDefault, path + ".default", "only scalar properties have defaults; \(property.typeString) has none")
            }
            if value == .null && !property.isOptional {
                throw error(.invalidDefault, path + ".default", "the default is null but '\(property.name)' is not optional")
            }
            do {
                _ = try Coercion.scalar(.value(value), as: property.type, for: property.name)
            } catch {
                throw self.error(.invalidDefault, path + ".default", "the default \(value.jsonValue.jsonText) does not fit: \(error)")
            }
        }
    }

    func validateLinkingObjects(
        _ property: PropertySchema, of model: ModelSchema, source: String, sourceProperty: String,
        path: SchemaLocation, models: [ModelSchema], indexByName: [String: Int]
    ) throws(SchemaError) {
        if property.isOptional || property.isIndexed {
            throw error(.invalidLinkingObjects, path, "linkingObjects are computed from the links that point here; they cannot be optional or indexed")
        }
        guard let sourceIndex = indexByName[source] else {
            throw error(.invalidLinkingObjects, path + ".objectType", "linkingObjects: '\(source)' is not a model of this schema\(NameSuggestion.hint(for: source, among: models.map(\.name)))")
        }
        let sourceModel = models[sourceIndex]
        guard let link = sourceModel[property: sourceProperty] else {
            throw error(.invalidLinkingObjects, path + ".property", "linkingObjects: model '\(source)' has no property '\(sourceProperty)'\(NameSuggestion.hint(for: sourceProperty, among: sourceModel.properties.map(\.name)))")
        }
        switch link.type {
        case .link(let target), .list(.link(let target)):
            if target != model.name {
                throw error(.invalidLinkingObjects, path + ".property", "linkingObjects: '\(source).\(sourceProperty)' links to '\(target)', not to '\(model.name)'")
            }
        default:
            throw error(.invalidLinkingObjects, path + ".property", "linkingObjects: '\(source).\(sourceProperty)' is \(link.typeString), not a link or list of links to '\(model.name)'")
        }
    }

    func validateRenames(of model: ModelSchema, index i: Int, indexByName: [String: Int]) throws(SchemaError) {
        if model.renamed.isEmpty { return }
        var oldNames: [String: String] = [:]
        for (new, old) in model.renamed.sorted(by: { $0.key < $1.key }) {
            var path: String { SchemaPath.member(SchemaPath.model(i) + ".renamed", new) }
            if new == model.name && model[property: new] != nil {
                throw error(.invalidRename, path, "'\(new)' names both the model and one of its properties, so the rename is ambiguous")
            }
            let isModelRename = new == model.name
            guard isModelRename || model[property: new] != nil else {
                throw error(.invalidRename, path, "'\(new)' is neither the model's name nor one of its properties; \"renamed\" maps a new name to the old one\(NameSuggestion.hint(for: new, among: [model.name] + model.properties.map(\.name)))")
            }
            guard SchemaName.isValid(old, underscoreFirst: !isModelRename) else {
                throw error(.invalidRename, path, "\(JSONValue.string(old).jsonText) is not a valid \(isModelRename ? "model" : "property") name")
            }
            if old == new {
                throw error(.invalidRename, path, "'\(new)' is renamed to itself")
            }
            if isModelRename, indexByName[old] != nil {
                throw error(.invalidRename, path, "old name '\(old)' is still a model of this schema")
            }
            if !isModelRename, model[property: old] != nil {
                throw error(.invalidRename, path, "old name '\(old)' is still a property of '\(model.name)'")
            }
            if let other = oldNames[old] {
                throw error(.invalidRename, path, "'\(other)' and '\(new)' are both renamed from '\(old)'")
            }
            if !isModelRename { oldNames[old] = new }
        }
    }
}
