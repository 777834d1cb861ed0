import Synchronization
import Trove

/// The stored properties a key path of a model goes through, by name: one for a property of
/// the model (`\Task.title`), more for a key path through optional to-one links
/// (`\Task.project?.title`, which a query writes `project.title`).
///
/// Linux has no `_kvcKeyPathString`, so a key path is named by equality with key paths built
/// from the property tables: a link's key path (`\Task.project`) with the key paths of the
/// linked model's table from an optional of it appended (`\Project?.?.title`, which `@Model`
/// writes as `_chainedKeyPaths`). Key paths compare component by component (stored offsets and
/// the types between them), so the one built equals the one written exactly when they go
/// through the same properties, but for a flag that a key path built across a class link
/// carries differently (see ``PersistentModel/sameThroughReferences(_:_:)``).
struct PropertyPath: @unchecked Sendable {
    /// The properties' names, from the root model's.
    var names: [String]
    /// The last property's schema.
    var schema: PropertySchema
    /// The model the last property links to, if it is a link or a list of links.
    var linkedModel: (any PersistentModel.Type)?

    /// The path as a query writes it: `project.title`.
    var dotted: String { names.joined(separator: ".") }

    var queryKeyPath: QueryKeyPath { QueryKeyPath(components: names.map { QueryIdentifier($0) }) }
}

extension PersistentModel {
    /// The property path `keyPath` names, or nil when it names none: a computed or
    /// `@Transient` property, a key path through a list, or one through a link to a model whose
    /// table is listed by hand.
    static func propertyPath(_ keyPath: AnyKeyPath) -> PropertyPath? {
        if let property = property(for: keyPath) {
            return PropertyPath(names: [property.name], schema: property.schema, linkedModel: property.linkedModel)
        }
        return LinkedPropertyPaths.path(of: keyPath, in: Self.self)
    }

    /// The property path of a key path that names a stored value to be `verb` (`"sorted by"`,
    /// `"sectioned by"`), or an error naming the model, the key path and the verb, with `hint`.
    static func storedPath(_ keyPath: AnyKeyPath, toBe verb: String, hint: String? = nil) throws -> PropertyPath {
        guard let path = propertyPath(keyPath), path.schema.isStored else {
            throw ModelQueryError("\(keyPathName(keyPath)) is not a stored property of \(modelName), nor one of a linked model through to-one links; only properties of the model tables (not computed or @Transient ones) can be \(verb)" + (hint.map { ": \($0)" } ?? ""))
        }
        return path
    }

    /// One link deeper: the key paths through each property of this model's table from the
    /// link `step` ends at. Returns the path when one equals `keyPath`; adds the links to
    /// `next`. `built` counts the key paths built, for ``LinkedPropertyPaths/budget``.
    static func extend(_ step: LinkedPropertyPaths.Step, toward keyPath: AnyKeyPath, valueType: Any.Type,
                       next: inout [LinkedPropertyPaths.Step], built: inout Int) -> PropertyPath? {
        let chained = _chainedKeyPaths
        guard chained.count == modelProperties.count else { return nil }
        for (index, property) in modelProperties.enumerated() {
            let linked: (any PersistentModel.Type)? = if case .link = property.schema.type { property.linkedModel } else { nil }
            let matchesType = type(of: chained[index]).valueType == valueType
            guard matchesType || linked != nil else { continue }
            built += 1
            guard let candidate = step.prefix.appending(path: chained[index]) else { continue }
            if matchesType && (candidate == keyPath || Self.sameThroughReferences(candidate, keyPath)) {
                return PropertyPath(names: step.names + [property.name], schema: property.schema, linkedModel: property.linkedModel)
            }
            if let linked { next.append(.init(prefix: candidate, names: step.names + [property.name], model: linked)) }
        }
        return nil
    }

    /// Whether `built`, a key path appended to one that crosses a class model, and `written`
    /// cross the same properties. Such an appended key path keeps a flag of its first part
    /// (where the part through references ended) that a key path written whole has elsewhere,
    /// and `==` compares it; the hash leaves it out, and the description names each property.
    /// The flag passes on to every later append, so a path that crossed a class at any depth
    /// needs this, whatever the model it ends in (`\Task.owner?.address?.city`, a struct
    /// after a class): asked of every candidate, which costs nothing where it counts, as each
    /// key path is searched for once.
    static func sameThroughReferences(_ built: AnyKeyPath, _ written: AnyKeyPath) -> Bool {
        built.hashValue == written.hashValue && "\(built)" == "\(written)"
    }

    /// The first step of a search: each to-one link of the table.
    static var linkSteps: [LinkedPropertyPaths.Step] {
        modelProperties.compactMap { property in
            guard case .link = property.schema.type, let linked = property.linkedModel else { return nil }
            return .init(prefix: property.keyPath, names: [property.name], model: linked)
        }
    }
}

/// The search for the property path of a key path through to-one links, and its answers.
enum LinkedPropertyPaths {
    /// A key path from the root model through links, ending at a link to `model`.
    struct Step {
        var prefix: AnyKeyPath
        var names: [String]
        var model: any PersistentModel.Type
    }

    /// The most key paths one search builds. Links are followed breadth first, one depth at a
    /// time, so every path up to the depth where the search stops is tried. To-one links of
    /// class models can form a cycle (`\Tutor.mentor?.mentor?...`), which the depth bound
    /// ends, and links of any models can fan out: a model with several links to models with
    /// several links each (a person's mother and father, each with theirs) has a number of
    /// paths that multiplies with each depth, and the search stops at this many rather than
    /// build them all.
    static let budget = 20_000

    /// The most links a key path goes through: as many as a typed read follows.
    static var maximumLinks: Int { ObjectDecoder.maximumDepth }

    /// Enough for the key paths a program writes; beyond it the answers start again, so that
    /// key paths built at run time cannot grow it without bound.
    static let capacity = 4096

    /// A key path as a key of ``answers``: key paths are immutable, so they are shared
    /// across threads as they are.
    struct Key: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    /// The answers by key path, none found as nil: each is searched for once.
    private static let answers = Mutex<[Key: PropertyPath?]>([:])

    static func path<T: PersistentModel>(of keyPath: AnyKeyPath, in root: T.Type) -> PropertyPath? {
        guard type(of: keyPath).rootType == T.self else { return nil }
        let key = Key(keyPath: keyPath)
        if let known = answers.withLock({ $0[key] }) { return known }
        let found = search(keyPath, from: T.self)
        answers.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[key] = .some(found)
        }
        return found
    }

    static func search<T: PersistentModel>(_ keyPath: AnyKeyPath, from root: T.Type) -> PropertyPath? {
        let valueType = type(of: keyPath).valueType
        var frontier = T.linkSteps
        var built = 0
        var links = 1
        while !frontier.isEmpty && links <= maximumLinks {
            var next: [Step] = []
            for step in frontier {
                if let found = step.model.extend(step, toward: keyPath, valueType: valueType, next: &next, built: &built) {
                    return found
                }
                if built >= budget { return nil }
            }
            frontier = next
            links += 1
        }
        return nil
    }
}
