import Trove

/// `.schema` output: a model as a schema file writes it (see schema-format.md), so it can
/// be pasted into one.
enum SchemaText {
    static func json(_ model: ModelDescription) -> String {
        var properties = JSONObject()
        for property in model.properties {
            if property.type == "linkingObjects" {
                var p = JSONObject()
                p["type"] = .string("linkingObjects")
                p["objectType"] = .string(property.objectType ?? "")
                p["property"] = .string(property.linkProperty ?? "")
                properties[property.name] = .object(p)
            } else if (property.isIndexed && property.name != model.primaryKey) || property.defaultValue != nil {
                var p = JSONObject([("type", .string(property.type))])
                if property.isIndexed && property.name != model.primaryKey { p["indexed"] = .bool(true) }
                if let defaultValue = property.defaultValue { p["default"] = defaultValue }
                properties[property.name] = .object(p)
            } else {
                properties[property.name] = .string(property.type)
            }
        }
        var text = "{\n  " + JSONText.string(.string("name")) + ": " + JSONText.string(.string(model.name))
        if let pk = model.primaryKey { text += ",\n  \"primaryKey\": " + JSONText.string(.string(pk)) }
        text += ",\n  \"properties\": {"
        for (i, pair) in properties.pairs.enumerated() {
            text += (i == 0 ? "\n    " : ",\n    ") + JSONText.string(.string(pair.key)) + ": " + JSONText.string(pair.value)
        }
        text += properties.count == 0 ? "}\n}" : "\n  }\n}"
        return text
    }
}
