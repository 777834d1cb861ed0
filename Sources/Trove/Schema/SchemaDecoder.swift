/// Reads the JSON document of a schema file into models, checking its shape.
///
/// Cross-model rules (names, primary keys, indexes, linkingObjects, renames) belong to
/// ``SchemaValidator``, which also checks schemas built in code. Type names are resolved
/// here because a default value can only be read once its type is known.
struct SchemaDecoder {
    let fileName: String?

    static let rootKeys = ["$schema", "schemaVersion", "models"]
    static let modelKeys = ["name", "primaryKey", "properties", "renamed"]
    static let propertyKeys = ["type", "optional", "indexed", "default", "objectType", "property"]

    func error(_ kind: SchemaError.Kind, _ path: String, _ message: String) -> SchemaError {
        SchemaError(kind, fileName: fileName, path: path, message: message)
    }

    func error(_ kind: SchemaError.Kind, _ location: SchemaLocation, _ message: String) -> SchemaError {
        error(kind, location.text, message)
    }

    func decode(_ json: JSONValue) throws(SchemaError) -> (schemaVersion: Int, models: [ModelSchema]) {
        guard case .object(let root) = json else {
            throw error(.invalidStructure, "", "a schema is a JSON object with \"models\" and an optional \"schemaVersion\", found \(json.typeDescription)")
        }
        try checkKeys(root, allowed: Self.rootKeys, path: .root, in: "the schema")
        if let s = root["$schema"], s.stringValue == nil {
            throw error(.invalidStructure, "$schema", "\"$schema\" must be a string (the URL or path of a JSON Schema), found \(s.typeDescription)")
        }
        var version = 0
        if let v = root["schemaVersion"] {
            switch v {
            case .int(let n) where n >= 0:
                version = Int(n)
            case .int(let n):
                throw error(.invalidSchemaVersion, "schemaVersion", "schemaVersion must be a non-negative integer, found \(n)")
            case .double(let d):
                throw error(.invalidSchemaVersion, "schemaVersion", "schemaVersion must be a non-negative integer, found \(d)")
            case .bigInteger(let digits):
                throw error(.invalidSchemaVersion, "schemaVersion", "schemaVersion must be a non-negative integer, found \(digits)")
            default:
                throw error(.invalidSchemaVersion, "schemaVersion", "schemaVersion must be a non-negative integer, found \(v.typeDescription)")
            }
        }
        guard let modelsValue = root["models"] else {
            throw error(.invalidStructure, "", "missing \"models\": the array of model definitions")
        }
        guard case .array(let elements) = modelsValue else {
            throw error(.invalidStructure, "models", "\"models\" must be an array of model objects, found \(modelsValue.typeDescription)")
        }
        // Every model name is known before any property type is read: links may point forward.
        let modelNames = Set(elements.compactMap { $0.objectValue?["name"]?.stringValue })
        var models: [ModelSchema] = []
        for (i, element) in elements.enumerated() {
            models.append(try decodeModel(element, index: i, modelNames: modelNames))
        }
        return (version, models)
    }

    func checkKeys(_ object: JSONObject, allowed: [String], path: SchemaLocation, in what: String) throws(SchemaError) {
        for (n, pair) in object.pairs.enumerated() {
            if object.pairs[..<n].contains(where: { $0.key == pair.key }) {
                throw error(.invalidStructure, SchemaPath.member(path.text, pair.key), "duplicate key \"\(pair.key)\" in \(what)")
            }
            if !allowed.contains(pair.key) {
                throw error(.invalidStructure, SchemaPath.member(path.text, pair.key),
                            "unknown key \"\(pair.key)\" in \(what)\(NameSuggestion.hint(for: pair.key, among: allowed)) (allowed: \(allowed.joined(separator: ", ")))")
            }
        }
    }

    func decodeModel(_ json: JSONValue, index: Int, modelNames: Set<String>) throws(SchemaError) -> ModelSchema {
        let path = SchemaLocation.model(index)
        guard case .object(let object) = json else {
            throw error(.invalidStructure, path, "a model is a JSON object with \"name\" and \"properties\", found \(json.typeDescription)")
        }
        try checkKeys(object, allowed: Self.modelKeys, path: path, in: "a model")
        guard let nameValue = object["name"] else {
            throw error(.invalidStructure, path, "a model needs a \"name\"")
        }
        guard case .string(let name) = nameValue else {
            throw error(.invalidModelName, path + ".name", "a model name must be a string, found \(nameValue.typeDescription)")
        }
        var primaryKey: String? = nil
        switch object["primaryKey"] {
        case nil, .null?: break
        case .string(let pk)?: primaryKey = pk
        case let other?:
            throw error(.invalidPrimaryKey, path + ".primaryKey", "primaryKey must be the name of a property, found \(other.typeDescription)")
        }
        guard let propertiesValue = object["properties"] else {
            throw error(.invalidStructure, path, "model '\(name)' needs \"properties\": an object of property names to types")
        }
        guard case .object(let propertiesObject) = propertiesValue else {
            throw error(.invalidStructure, path + ".properties", "\"properties\" must be an object of property names to types (its key order is the property order), found \(propertiesValue.typeDescription)")
        }
        var properties: [PropertySchema] = []
        for pair in propertiesObject.pairs {
            let propertyPath = SchemaLocation.property(index, pair.key)
            if properties.contains(where: { $0.name == pair.key }) {
                throw error(.duplicateProperty, propertyPath, "duplicate property '\(pair.key)' in model '\(name)'")
            }
            properties.append(try decodeProperty(name: pair.key, json: pair.value, path: propertyPath, modelNames: modelNames))
        }
        var renamed: [String: String] = [:]
        if let renamedValue = object["renamed"] {
            guard case .object(let renames) = renamedValue else {
                throw error(.invalidRename, path + ".renamed", "\"renamed\" must be an object of new names to old names, found \(renamedValue.typeDescription)")
            }
            for pair in renames.pairs {
                var renamePath: String { SchemaPath.member((path + ".renamed").text, pair.key) }
                if renamed[pair.key] != nil {
                    throw error(.invalidRename, renamePath, "duplicate key \"\(pair.key)\" in \"renamed\"")
                }
                guard case .string(let old) = pair.value else {
                    throw error(.invalidRename, renamePath, "the old name must be a string, found \(pair.value.typeDescription)")
                }
                renamed[pair.key] = old
            }
        }
        return ModelSchema(name: name, primaryKey: primaryKey, properties: properties, renamed: renamed)
    }

    func decodeProperty(name: String, json: JSONValue, path: SchemaLocation, modelNames: Set<String>) throws(SchemaError) -> PropertySchema {
        switch json {
        case .string(let typeText):
            let (type, optional) = try parseType(typeText, path: path, modelNames: modelNames)
            return PropertySchema(name: name, type: type, isOptional: optional)
        case .object(let object):
            try checkKeys(object, allowed: Self.propertyKeys, path: path, in: "a property")
            guard let typeValue = object["type"] else {
                throw error(.invalidStructure, path, "a property object needs \"type\"")
            }
            guard case .string(let typeText) = typeValue else {
                throw error(.invalidType, path + ".type", "\"type\" must be a string such as \"int\", \"Dog?\" or \"string[]\", found \(typeValue.typeDescription)")
            }
            if typeText == "linkingObjects" {
                return try decodeLinkingObjects(name: name, object: object, path: path)
            }
            for key in ["objectType", "property"] where object[key] != nil {
                throw error(.invalidStructure, path + "." + key, "\"\(key)\" only applies to linkingObjects; for a link write the model name as the type, such as \"Dog?\" or \"Dog[]\"")
            }
            var (type, optional) = try parseType(typeText, path: path + ".type", modelNames: modelNames)
            if let optionalValue = object["optional"] {
                guard case .bool(let flag) = optionalValue else {
                    throw error(.invalidOptionality, path + ".optional", "\"optional\" must be true or false, found \(optionalValue.typeDescription)")
                }
                if type.isLink && !flag {
                    throw error(.invalidOptionality, path + ".optional", "a to-one link is always optional (it is null until set, as in Realm); remove \"optional\": false")
                }
                if case .list(.link(let model)) = type, flag {
                    throw error(.invalidOptionality, path + ".optional", "a list of links cannot contain null; write \"\(model)[]\" without \"optional\"")
                }
                if optional && !flag && !type.isLink {
                    throw error(.invalidOptionality, path + ".optional", "\"optional\": false contradicts the type \"\(typeText)\"")
                }
                optional = optional || flag
            }
            var indexed = false
            if let indexedValue = object["indexed"] {
                guard case .bool(let flag) = indexedValue else {
                    throw error(.invalidIndex, path + ".indexed", "\"indexed\" must be true or false, found \(indexedValue.typeDescription)")
                }
                indexed = flag
            }
            var defaultValue: Value? = nil
            if let defaultJSON = object["default"] {
                let defaultPath = path + ".default"
                switch type {
                case .list:
                    throw error(.invalidDefault, defaultPath, "a list cannot have a default: it starts empty")
                case .link:
                    throw error(.invalidDefault, defaultPath, "a link cannot have a default: it starts null")
                default:
                    break
                }
                if defaultJSON == .null && !optional {
                    throw error(.invalidDefault, defaultPath, "the default is null but '\(name)' is not optional; write \"\(typeText)?\" or give a \(type) value")
                }
                do {
                    defaultValue = try Coercion.scalar(.json(defaultJSON), as: type, for: name)
                } catch {
                    throw self.error(.invalidDefault, defaultPath, "the default does not fit: \(error)")
                }
            }
            return PropertySchema(name: name, type: type, isOptional: optional, isIndexed: indexed, defaultValue: defaultValue)
        default:
            throw error(.invalidStructure, path, "a property is a type string such as \"int?\" or an object with \"type\", found \(json.typeDescription)")
        }
    }

    func decodeLinkingObjects(name: String, object: JSONObject, path: SchemaLocation) throws(SchemaError) -> PropertySchema {
        for key in ["optional", "indexed", "default"] where object[key] != nil {
            throw error(.invalidLinkingObjects, path + "." + key, "linkingObjects are computed from the links that point here; they take no \"\(key)\"")
        }
        func string(_ key: String, _ meaning: String) throws(SchemaError) -> String {
            guard let value = object[key] else {
                throw error(.invalidLinkingObjects, path, "linkingObjects needs \"\(key)\": \(meaning)")
            }
            guard case .string(let s) = value else {
                throw error(.invalidLinkingObjects, path + "." + key, "\"\(key)\" must be a string (\(meaning)), found \(value.typeDescription)")
            }
            return s
        }
        let model = try string("objectType", "the model whose links point here")
        let property = try string("property", "the link or list property of that model")
        return PropertySchema(name: name, type: .linkingObjects(model, property: property))
    }

    /// Reads `int`, `int?`, `Dog`, `Dog?`, `Dog[]`, `int[]`, `int?[]`; the flag is optionality.
    func parseType(_ text: String, path: SchemaLocation, modelNames: Set<String>) throws(SchemaError) -> (PropertyType, Bool) {
        // The suffixes are ASCII, so they are read from the UTF-8 bytes: `hasSuffix` on a
        // substring runs the standard library's unspecialized generic comparison.
        var base = Substring(text)
        var isList = false
        var optional = false
        if Self.endsWithBrackets(base) {
            isList = true
            base = Substring(base.utf8.dropLast(2))
        }
        if base.utf8.last == UInt8(ascii: "?") {
            optional = true
            base = Substring(base.utf8.dropLast())
        }
        if Self.endsWithBrackets(base) {
            if optional && !isList {
                // A list of links holds no null, so its one form is the hint there.
                var element = String(base.dropLast(2))
                if element.hasSuffix("?") { element.removeLast() }
                let hint = modelNames.contains(element) ? "write \"\(element)[]\"" : "for null elements write \"\(element)?[]\""
                throw error(.invalidType, path, "a list cannot be null (it is empty instead); \(hint)")
            }
            throw error(.invalidType, path, "lists of lists are not supported (\"\(text)\")")
        }
        guard SchemaName.isValid(String(base), underscoreFirst: true) else {
            throw error(.invalidType, path, "\"\(text)\" is not a type: write a type name, optionally followed by '?' and '[]', such as \"int?\", \"Dog\" or \"string[]\"")
        }
        let name = String(base)
        if name == "linkingObjects" {
            throw error(.invalidType, path, "linkingObjects needs the object form {\"type\": \"linkingObjects\", \"objectType\": \"Model\", \"property\": \"linkProperty\"}")
        }
        let element: PropertyType
        if let scalar = PropertyType(scalarName: name) {
            element = scalar
        } else if modelNames.contains(name) {
            element = .link(name)
            if isList && optional {
                throw error(.invalidOptionality, path, "a list of links cannot contain null; write \"\(name)[]\"")
            }
        } else {
            throw SchemaValidator.unknownType(name, path: path.text, fileName: fileName, modelNames: modelNames)
        }
        if isList { return (.list(element), optional) }
        return (element, optional || element.isLink)
    }

    private static func endsWithBrackets(_ text: Substring) -> Bool {
        let bytes = text.utf8
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "]") else { return false }
        return bytes[bytes.index(bytes.endIndex, offsetBy: -2)] == UInt8(ascii: "[")
    }
}
