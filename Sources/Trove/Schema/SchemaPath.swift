/// JSON paths for schema errors: `models[1].properties.owner.default`.
enum SchemaPath {
    static func model(_ index: Int) -> String { "models[\(index)]" }

    static func property(_ model: Int, _ name: String) -> String {
        member(self.model(model) + ".properties", name)
    }

    /// `base.key`, or `base["odd key"]` when the key is not an identifier.
    static func member(_ base: String, _ key: String) -> String {
        let isIdentifier = key.utf8.first.map { !($0 &- UInt8(ascii: "0") < 10) } ?? false
            && key.utf8.allSatisfy { c in
                c == UInt8(ascii: "_") || c &- UInt8(ascii: "0") < 10 || (c | 0x20) &- UInt8(ascii: "a") < 26
            }
        if isIdentifier { return base.isEmpty ? key : base + "." + key }
        return base + "[" + JSONValue.string(key).jsonText + "]"
    }
}

/// A place in the schema document, rendered as a ``SchemaPath`` string only when an error
/// reports it: a valid schema (read again at every store open) renders none.
struct SchemaLocation {
    /// nil: the document's root.
    private let model: Int?
    private let property: String?
    private let suffix: String

    static let root = SchemaLocation(model: nil, property: nil, suffix: "")
    static func model(_ index: Int) -> SchemaLocation { SchemaLocation(model: index, property: nil, suffix: "") }
    static func property(_ model: Int, _ name: String) -> SchemaLocation { SchemaLocation(model: model, property: name, suffix: "") }

    /// The place `suffix` (such as `.type`) names below this one.
    static func + (location: SchemaLocation, suffix: String) -> SchemaLocation {
        SchemaLocation(model: location.model, property: location.property, suffix: location.suffix + suffix)
    }

    var text: String {
        guard let model else { return suffix }
        return (property.map { SchemaPath.property(model, $0) } ?? SchemaPath.model(model)) + suffix
    }
}
