/// The stored properties of a store's models, for a Swift type to tell whether its writes
/// name all of them.
package struct StoredModels {
    let layout: StoreLayout

    /// The stored properties of `model`, each with the model its link or list of links points
    /// to; nil when the store has no such model.
    package func storedProperties(of model: String) -> [(name: String, target: String?)]? {
        layout.byName[model]?.storedProperties.map { ($0.name, $0.target?.name) }
    }
}

/// Turns a ``Persistable`` value into the property values of its model, shaped for the
/// store: computed (linkingObjects) properties dropped, nested objects shaped by their own
/// model, and unset optional properties, links and lists written as null or empty so that a
/// whole-value write replaces what was stored.
package enum ValueMapping {
    static func properties(of value: some Persistable, model: ModelLayout) throws -> [String: Value] {
        guard case .object(let dict) = try ValueEncoder.encode(value) else {
            throw StoreError.invalidArgument("\(type(of: value)) must encode as a keyed container to be stored as \(model.name)")
        }
        return shape(dict, model: model)
    }

    static func shape(_ dict: [String: Value], model: ModelLayout) -> [String: Value] {
        if isShaped(dict, model: model) { return dict }
        var out: [String: Value] = [:]
        for (name, v) in dict {
            // Unknown names stay, for the store to refuse with a clear error.
            guard let p = model.byName[name] else { out[name] = v; continue }
            if p.isLinkingObjects { continue }
            switch v {
            case .object(let nested) where p.isLink:
                out[name] = p.target.map { .object(shape(nested, model: $0)) } ?? v
            case .list(let items) where p.isLinkList:
                out[name] = .list(items.map { item in
                    if case .object(let nested) = item, let target = p.target { return .object(shape(nested, model: target)) }
                    return item
                })
            default:
                out[name] = v
            }
        }
        for p in model.properties where p.isStored && out[p.name] == nil {
            if p.isList { out[p.name] = .list([]) } else if p.isOptional { out[p.name] = .null }
        }
        return out
    }

    /// Whether `shape` gives `dict` back as it is: it names every stored property of `model`
    /// and nothing else, and so do its nested objects. A value of a type that declares the
    /// whole model (what `@Model` writes) is checked by name and not copied.
    static func isShaped(_ dict: [String: Value], model: ModelLayout) -> Bool {
        guard dict.count == model.storedProperties.count else { return false }
        for (name, v) in dict {
            // Distinct names that are all stored properties, as many as there are: all of them.
            guard let p = model.byName[name], p.isStored else { return false }
            switch v {
            case .object(let nested) where p.isLink:
                guard let target = p.target, isShaped(nested, model: target) else { return false }
            case .list(let items) where p.isLinkList:
                for case .object(let nested) in items {
                    guard let target = p.target, isShaped(nested, model: target) else { return false }
                }
            default:
                break
            }
        }
        return true
    }

    /// An entity's encoded value (model name, value) as a repository saves and compares it:
    /// `shape`d by its model in `layout`. An unknown model is left for the save to refuse by
    /// name.
    static func entityShape(_ model: String, _ value: Value, layout: StoreLayout) -> Value {
        guard case .object(let properties) = value, let m = layout.byName[model] else { return value }
        return .object(shape(properties, model: m))
    }

    /// ``entityShape(_:_:layout:)`` for a repository over `schema` without a store.
    package static func entityShape(schema: Schema) -> (String, Value) -> Value {
        let layout = StoreLayout(schema: schema, ids: [:], nextModelID: 1)
        return { entityShape($0, $1, layout: layout) }
    }
}
