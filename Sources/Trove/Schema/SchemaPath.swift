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
