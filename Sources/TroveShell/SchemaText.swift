import Trove

/// `.schema` output: every model as a schema file (see schema-format.md), which `--schema`
/// takes back, or one model as such a file writes it, to paste into one.
enum SchemaText {
    static func file(_ models: [ModelDescription], schemaVersion: Int) -> String {
        let indented = models.map { json($0).split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") }
        return "{\n  \"schemaVersion\": \(schemaVersion),\n  \"models\": ["
            + (models.isEmpty ? "]\n}" : "\n" + indented.joined(separator: ",\n") + "\n  ]\n}")
    }

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
