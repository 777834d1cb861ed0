extension Schema {
    /// The schema as a schema file, in canonical form: `Schema(json: schema.jsonValue)`
    /// equals `schema`. A property is a type string unless it needs the object form
    /// (index, default, linkingObjects); links are written `Model?`.
    public var jsonValue: JSONValue {
        var root = JSONObject()
        root["schemaVersion"] = .int(Int64(schemaVersion))
        root["models"] = .array(models.map(\.jsonValue))
        return .object(root)
    }

    /// The schema file text, indented by two spaces.
    public var jsonText: String { jsonText(style: .pretty) }

    /// The schema file text in `style`: the store keeps it compact.
    package func jsonText(style: JSONWriter.Style) -> String {
        // Defaults are validated finite, so writing cannot fail.
        (try? JSONWriter(style: style).string(jsonValue)) ?? ""
    }
}

extension ModelSchema {
    /// The model as a schema file writes it.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        if let primaryKey { object["primaryKey"] = .string(primaryKey) }
        var properties = JSONObject()
        for property in self.properties { properties[property.name] = property.jsonValue }
        object["properties"] = .object(properties)
        if !renamed.isEmpty {
            // Model first, then properties in their order: a stable, readable order.
            var renames = JSONObject()
            if let old = renamed[name] { renames[name] = .string(old) }
            for property in self.properties {
                if let old = renamed[property.name], property.name != name { renames[property.name] = .string(old) }
            }
            for (new, old) in renamed.sorted(by: { $0.key < $1.key }) where renames[new] == nil {
                renames[new] = .string(old)
            }
            object["renamed"] = .object(renames)
        }
        return .object(object)
    }
}

extension PropertySchema {
    /// The property as a schema file writes it: `"int?"` or `{"type": ..., ...}`.
    public var jsonValue: JSONValue {
        if case .linkingObjects(let model, let property) = type {
            return ["type": "linkingObjects", "objectType": .string(model), "property": .string(property)]
        }
        guard isIndexed || defaultValue != nil else { return .string(typeString) }
        var object: JSONObject = ["type": .string(typeString)]
        if isIndexed { object["indexed"] = true }
        if let defaultValue { object["default"] = defaultValue.jsonValue }
        return .object(object)
    }
}
