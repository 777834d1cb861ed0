import TroveStorage

/// How one property is stored: its stable id (its slot in records), type and default.
final class PropertyLayout: @unchecked Sendable {
    let schema: PropertySchema
    let id: Int
    /// Position in the model's property list (schema order).
    let position: Int
    unowned(unsafe) var model: ModelLayout!
    /// For links, lists of links and linkingObjects: the target model.
    unowned(unsafe) var target: ModelLayout?
    /// For linkingObjects: the origin property on `target`.
    unowned(unsafe) var origin: PropertyLayout?
    let isIndexed: Bool

    var name: String { schema.name }
    var type: PropertyType { schema.type }
    var isOptional: Bool { schema.isOptional }
    var isStored: Bool { schema.isStored }
    var isLink: Bool { if case .link = schema.type { return true } else { return false } }
    var isList: Bool { if case .list = schema.type { return true } else { return false } }
    var isLinkList: Bool { if case .list(let e) = schema.type, case .link = e { return true } else { return false } }
    var isLinkingObjects: Bool { schema.type.isLinkingObjects }
    /// The element type of a list, else the type.
    var elementType: PropertyType { if case .list(let e) = schema.type { return e } else { return schema.type } }
    /// Stored, not computed: building the name per access cost an interpolation per write.
    let indexTreeName: String
    /// Where the snapshot caches the index tree's handle (see ``ModelLayout/objectsTreeSlot``).
    let indexTreeSlot: Int
    /// ``PropertySchema/valueWhenOmitted``, built once.
    let defaultValue: Value
    let isLinkOrLinkList: Bool

    init(schema: PropertySchema, id: Int, position: Int, indexed: Bool, modelID: Int, indexTreeSlot: Int) {
        self.schema = schema
        self.id = id
        self.position = position
        self.isIndexed = indexed
        self.indexTreeName = "i:\(modelID):\(id)"
        self.indexTreeSlot = indexTreeSlot
        self.defaultValue = schema.valueWhenOmitted
        if case .link = schema.type { isLinkOrLinkList = true }
        else if case .list(let e) = schema.type, case .link = e { isLinkOrLinkList = true }
        else { isLinkOrLinkList = false }
    }
}

/// How one model is stored: its id (tree names), properties by name and by id.
final class ModelLayout: @unchecked Sendable {
    let schema: ModelSchema
    let id: Int
    let properties: [PropertyLayout]
    let byName: [String: PropertyLayout]
    /// Stored properties indexed by id (nil where an id is unused).
    let byID: [PropertyLayout?]
    let primaryKey: PropertyLayout?
    let objectsTree: String
    let primaryKeyTree: String
    /// Positions in a snapshot's array of tree handles: resolving a tree by slot skips
    /// hashing its name (every write resolves 3-5 trees).
    let objectsTreeSlot: Int
    let primaryKeyTreeSlot: Int
    /// Indexed properties and links, the ones writes must maintain, in schema order.
    let indexedProperties: [PropertyLayout]
    let linkProperties: [PropertyLayout]
    /// Stored properties in schema order.
    let storedProperties: [PropertyLayout]
    /// The properties in the order of each typed model read as this one.
    let typedSlots = TypedSlotTables()

    var name: String { schema.name }

    /// Tree slots this model uses: objects, primary key, one per property.
    static func treeSlotCount(_ schema: ModelSchema) -> Int { 2 + schema.properties.count }

    init(schema: ModelSchema, id: Int, propertyIDs: [String: Int], firstTreeSlot: Int) {
        self.schema = schema
        self.id = id
        objectsTree = "o:\(id)"
        primaryKeyTree = "p:\(id)"
        objectsTreeSlot = firstTreeSlot
        primaryKeyTreeSlot = firstTreeSlot + 1
        // Plain loops into sized collections: every open builds these, and the generic
        // `map`/`filter`/`Dictionary(uniqueKeysWithValues:)` path costs more than the work.
        var props: [PropertyLayout] = []
        props.reserveCapacity(schema.properties.count)
        var names = [String: PropertyLayout](minimumCapacity: schema.properties.count)
        var indexed: [PropertyLayout] = [], links: [PropertyLayout] = [], stored: [PropertyLayout] = []
        var maxID = -1
        for (i, p) in schema.properties.enumerated() {
            let layout = PropertyLayout(schema: p, id: propertyIDs[p.name] ?? -1, position: i,
                                        indexed: p.isIndexed && p.name != schema.primaryKey,
                                        modelID: id, indexTreeSlot: firstTreeSlot + 2 + i)
            props.append(layout)
            precondition(names.updateValue(layout, forKey: p.name) == nil, "duplicate property name \(p.name)")
            if layout.isIndexed { indexed.append(layout) }
            if layout.isLinkOrLinkList { links.append(layout) }
            if layout.isStored { stored.append(layout) }
            maxID = max(maxID, layout.id)
        }
        indexedProperties = indexed
        linkProperties = links
        storedProperties = stored
        properties = props
        byName = names
        var ids = [PropertyLayout?](repeating: nil, count: maxID + 1)
        for p in props where p.id >= 0 { ids[p.id] = p }
        byID = ids
        primaryKey = schema.primaryKey.flatMap { names[$0] }
        for p in props { p.model = self }
    }
}

/// The whole store's layout: every model with stable ids, persisted beside the schema so that
/// records keep their meaning across schema changes.
final class StoreLayout: @unchecked Sendable {
    let schema: Schema
    let models: [ModelLayout]
    let byName: [String: ModelLayout]
    let byID: [Int: ModelLayout]
    /// Links pointing at each model: (source property), for link integrity on delete.
    let incoming: [Int: [PropertyLayout]]
    let nextModelID: Int
    /// The size of a snapshot's array of tree handles (see ``ModelLayout/objectsTreeSlot``).
    let treeSlotCount: Int
    static let backlinksTreeSlot = 0

    /// Builds the layout; `ids` gives known model ids and their property ids (new ones get fresh ids).
    init(schema: Schema, ids: [String: (id: Int, properties: [String: Int])], nextModelID: Int) {
        self.schema = schema
        var next = nextModelID
        var models: [ModelLayout] = []
        var slot = 1   // slot 0: the backlink tree
        for m in schema.models {
            let known = ids[m.name]
            let mid: Int
            if let known { mid = known.id } else { mid = next; next += 1 }
            var pids = known?.properties ?? [:]
            var nextProp = (pids.values.max() ?? -1) + 1
            for p in m.properties where p.isStored && pids[p.name] == nil {
                pids[p.name] = nextProp
                nextProp += 1
            }
            for p in m.properties where !p.isStored { pids[p.name] = nil }
            models.append(ModelLayout(schema: m, id: mid, propertyIDs: pids, firstTreeSlot: slot))
            slot += ModelLayout.treeSlotCount(m)
        }
        treeSlotCount = slot
        self.nextModelID = next
        self.models = models
        var byName = [String: ModelLayout](minimumCapacity: models.count)
        var byID = [Int: ModelLayout](minimumCapacity: models.count)
        for m in models {
            precondition(byName.updateValue(m, forKey: m.name) == nil, "duplicate model name \(m.name)")
            precondition(byID.updateValue(m, forKey: m.id) == nil, "duplicate model id \(m.id)")
        }
        self.byName = byName
        self.byID = byID
        var incoming: [Int: [PropertyLayout]] = [:]
        for m in models {
            for p in m.properties {
                guard let targetName = p.schema.objectType, let target = byName[targetName] else { continue }
                p.target = target
                if p.isLink || p.isLinkList { incoming[target.id, default: []].append(p) }
            }
        }
        for m in models {
            for p in m.properties where p.isLinkingObjects {
                if let origin = p.schema.originProperty { p.origin = p.target?.byName[origin] }
            }
        }
        self.incoming = incoming
    }

    /// The ids as persisted: `{"Model": {"id": 1, "properties": {"name": 0}}}`.
    var idsJSON: JSONValue {
        var models = JSONObject()
        for m in self.models {
            var props = JSONObject()
            for p in m.properties where p.id >= 0 { props[p.name] = .int(Int64(p.id)) }
            models[m.name] = .object(JSONObject([("id", .int(Int64(m.id))), ("properties", .object(props))]))
        }
        return .object(JSONObject([("nextModelID", .int(Int64(nextModelID))), ("models", .object(models))]))
    }

    static func decodeIDs(_ json: JSONValue) -> (ids: [String: (id: Int, properties: [String: Int])], next: Int) {
        guard case .object(let root) = json, case .object(let models)? = root["models"] else { return ([:], 1) }
        // The labelled element type: a dictionary of unlabelled tuples is copied to convert.
        var ids = [String: (id: Int, properties: [String: Int])](minimumCapacity: models.pairs.count)
        for (name, v) in models.pairs {
            guard case .object(let m) = v, case .int(let id)? = m["id"] else { continue }
            var props: [String: Int] = [:]
            if case .object(let p)? = m["properties"] {
                props = Dictionary(minimumCapacity: p.pairs.count)
                for (pn, pv) in p.pairs { if case .int(let pid) = pv { props[pn] = Int(pid) } }
            }
            ids[name] = (Int(id), props)
        }
        var maxID = 0
        for (i, model) in ids.values.enumerated() { maxID = i == 0 ? model.id : max(maxID, model.id) }
        var next = maxID + 1
        if case .int(let n)? = root["nextModelID"] { next = max(next, Int(n)) }
        return (ids, next)
    }
}
