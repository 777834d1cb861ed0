import Trove

/// `.dump [MODEL ...]`: a store or PostgreSQL database (a `DumpSource`) as shell statements
/// that rebuild it, `trove NEW -f DUMP`: the same text for the same objects on either.
///
/// The text is a `.apply-schema` line with the schema, then one transaction in two passes:
/// 1. `insert` of every object of a model with a primary key, without its links;
/// 2. `upsert` of the links of each such object that has any, then `insert` of every object
///    of a model without a primary key, links included.
/// Links are set after every object they can point at exists, because links may form cycles
/// (a `Person.bestFriend` chain, two people each other's friend) that no insert order
/// resolves. An object of a model without a primary key has no name to link to, so where a
/// link points at one, the object is written nested in the link, which inserts it there; only
/// objects no link points at are inserted on their own. An object linked from several places
/// comes back as one copy per link: the dump warns about each such model. `export` writes
/// such links nested too (`withNestedLinks`), so that `import` reads them back.
struct StoreDump {
    let source: any DumpSource
    let schema: Schema
    /// Models whose objects are dumped, in schema order.
    let models: [ModelSchema]
    let write: (String) throws -> Void
    let warn: (String) -> Void

    init(source: any DumpSource, models names: [String], write: @escaping (String) throws -> Void,
         warn: @escaping (String) -> Void) throws {
        let schema = source.schema
        for name in names where schema[name] == nil { throw StatementError.noModel(named: name, among: schema.models.map(\.name)) }
        self.source = source
        self.schema = schema
        models = names.isEmpty ? schema.models : schema.models.filter { names.contains($0.name) }
        self.write = write
        self.warn = warn
    }

    func run() throws {
        try write("-- trove dump: rebuild with  trove NEWFILE -f THISFILE\n")
        try write(".apply-schema " + dumpedSchema().jsonText(style: .compact) + "\n")
        try write("begin\n")
        let linked = try linkedWithoutKey()
        for model in models where model.primaryKey != nil {
            try source.forEachObject(of: model) { object in
                try statement("insert", model, try Self.fields(of: object, model, schema: schema, links: false))
            }
        }
        for model in models {
            let keyName = model.primaryKey
            let links = model.properties.filter { $0.isStored && $0.type.objectType != nil }
            if keyName != nil, links.isEmpty { continue }
            try source.forEachObject(of: model) { object in
                if let keyName {
                    let json = try object.json()
                    var record = JSONObject()
                    record[keyName] = json[keyName] ?? .null
                    var any = false
                    for p in links {
                        let value = try Self.linkValue(object, json, p, schema: schema, path: [])
                        if value != .null, value != .array([]) { any = true }
                        record[p.name] = value
                    }
                    if any { try statement("upsert", model, record) }
                } else if !linked.contains(object.identity) {
                    try statement("insert", model, try Self.fields(of: object, model, schema: schema, links: true))
                }
            }
        }
        try write("commit\n")
    }

    private func statement(_ keyword: String, _ model: ModelSchema, _ record: JSONObject) throws {
        try write(keyword + " " + model.name + " " + JSONText.string(record) + "\n")
    }

    /// The dumped models and every model their schema names (link targets, the origins of
    /// linkingObjects), so that the schema stands alone; `renamed` is left out, as a new
    /// store has nothing to rename.
    private func dumpedSchema() throws -> Schema {
        var needed = Set(models.map(\.name))
        var queue = models.map(\.name)
        while let name = queue.popLast() {
            for p in schema[name]?.properties ?? [] {
                if let target = p.type.objectType, needed.insert(target).inserted { queue.append(target) }
            }
        }
        let kept = schema.models.filter { needed.contains($0.name) }.map { m in
            ModelSchema(name: m.name, primaryKey: m.primaryKey, properties: m.properties)
        }
        do {
            return try Schema(schemaVersion: schema.schemaVersion, models: kept)
        } catch {
            throw StatementError("cannot dump the schema: \(error.description)")
        }
    }

    /// The stored properties of `object`; links only when `links` (as `linkValue` writes them).
    private static func fields(of object: any DumpObject, _ model: ModelSchema, schema: Schema, links: Bool,
                               path: [AnyHashable] = [], cyclesEnd: Bool = false) throws -> JSONObject {
        let json = try object.json()
        var out = JSONObject()
        for p in model.properties where p.isStored {
            if p.type.objectType != nil {
                if links { out[p.name] = try linkValue(object, json, p, schema: schema, path: path, cyclesEnd: cyclesEnd) }
            } else {
                out[p.name] = json[p.name] ?? .null
            }
        }
        return out
    }

    /// The stored links of `model` to models without a primary key: those `withNestedLinks`
    /// writes nested. Found once per export, so that a model with none pays nothing per object.
    static func linksWrittenNested(_ model: ModelSchema, schema: Schema) -> [PropertySchema] {
        model.properties.filter { p in
            guard p.isStored, let targetName = p.type.objectType else { return false }
            return schema[targetName]?.primaryKey == nil
        }
    }

    /// The objects among `objects` (of a model without a primary key, whose `links` are
    /// `linksWrittenNested`) that another of them holds nested, directly or through other
    /// nested objects: `export` leaves them out, as `.dump` does, so that each comes back once.
    /// A cycle of nested links is the error `.dump` gives for one.
    static func nestedInOthers(_ objects: some Sequence<some DumpObject>, _ model: ModelSchema,
                               _ links: [PropertySchema], schema: Schema) throws -> Set<AnyHashable> {
        var nested = Set<AnyHashable>()
        var linksOf: [String: [PropertySchema]] = [model.name: links]
        for root in objects {
            var stack: [(any DumpObject, [PropertySchema])] = [(root, links)]
            var reached = Set<AnyHashable>()
            while let (object, objectLinks) = stack.popLast() {
                for p in objectLinks {
                    guard let targetName = p.type.objectType else { continue }
                    for target in try object.linked(p) {
                        if target.identity == root.identity {
                            throw StatementError("cannot write '\(model.name)' nested in links: its objects have no primary key and link to each other in a cycle")
                        }
                        guard reached.insert(target.identity).inserted else { continue }
                        let targetLinks = linksOf[targetName] ?? {
                            guard let m = schema[targetName] else { return [] }
                            let l = linksWrittenNested(m, schema: schema)
                            linksOf[targetName] = l
                            return l
                        }()
                        stack.append((target, targetLinks))
                    }
                }
            }
            nested.formUnion(reached)
        }
        return nested
    }

    /// `json`, the JSON form of `object`, with each of `links` (`linksWrittenNested` of its
    /// model) written as `.dump` writes it, nested: what `import` reads back. `export` writes
    /// objects so. With `cyclesEnd` (what the shell prints), a link to an object already on its
    /// own path is null rather than the error `export` gives for a cycle.
    static func withNestedLinks(_ object: some DumpObject, _ json: JSONObject, _ links: [PropertySchema],
                                schema: Schema, cyclesEnd: Bool = false) throws -> JSONObject {
        var out = json
        for p in links { out[p.name] = try linkValue(object, json, p, schema: schema, path: [], cyclesEnd: cyclesEnd) }
        return out
    }

    /// `value`, a value of a row of SELECT or GROUP (`json` its JSON form), with each object of
    /// a model without a primary key (a `.reference`, in a list too) written nested, as `export`
    /// writes a link to it: read by `object`.
    static func nestedReferences(_ value: Value, _ json: JSONValue, schema: Schema, cyclesEnd: Bool = false,
                                 object: (ObjectReference) throws -> (any DumpObject)?) throws -> JSONValue {
        switch value {
        case .reference(let reference):
            guard let model = schema[reference.model], let linked = try object(reference) else { return .null }
            return .object(try fields(of: linked, model, schema: schema, links: true, cyclesEnd: cyclesEnd))
        case .list(let items) where items.contains(where: Self.isReference):
            return .array(try items.map { try nestedReferences($0, $0.jsonValue, schema: schema, cyclesEnd: cyclesEnd, object: object) })
        default:
            return json
        }
    }

    static func isReference(_ value: Value) -> Bool {
        if case .reference = value { true } else { false }
    }

    /// A link or list of links: targets with a primary key by it (as `json`, the object's JSON
    /// form, has it), others as nested objects.
    private static func linkValue(_ object: any DumpObject, _ json: JSONObject, _ p: PropertySchema,
                                  schema: Schema, path: [AnyHashable], cyclesEnd: Bool = false) throws -> JSONValue {
        guard let targetName = p.type.objectType, let target = schema[targetName] else { return .null }
        if target.primaryKey != nil { return json[p.name] ?? .null }
        let path = path + [object.identity]
        func nested(_ linked: any DumpObject) throws -> JSONValue {
            if path.contains(linked.identity) {
                if cyclesEnd { return .null }
                throw StatementError("cannot write '\(target.name)' nested in links: its objects have no primary key and link to each other in a cycle")
            }
            return .object(try fields(of: linked, target, schema: schema, links: true, path: path, cyclesEnd: cyclesEnd))
        }
        let linked = try object.linked(p)
        if p.type.isList { return .array(try linked.map(nested)) }
        return try linked.first.map(nested) ?? .null
    }

    /// Objects of models without a primary key that a link of a dumped object points at: they
    /// are written nested in that link. Warns about a model with objects that several links
    /// share.
    private func linkedWithoutKey() throws -> Set<AnyHashable> {
        var seen = Set<AnyHashable>()
        var shared = Set<String>()
        for model in models {
            let links = model.properties.filter { p in
                p.isStored && p.type.objectType.map { schema[$0]?.primaryKey == nil } == true
            }
            if links.isEmpty { continue }
            try source.forEachObject(of: model) { object in
                for p in links {
                    for target in try object.linkedIdentities(p) where !seen.insert(target).inserted {
                        shared.insert(p.type.objectType ?? "")
                    }
                }
            }
        }
        for name in shared.sorted() {
            warn("objects of '\(name)' (a model without a primary key) are linked from several places;"
                + " the dump writes one copy per link")
        }
        return seen
    }
}
