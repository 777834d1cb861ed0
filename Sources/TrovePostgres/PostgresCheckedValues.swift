import Trove

/// A write's values, checked and coerced before any of its statements is sent: what the
/// client refuses (a value of the wrong type, text holding a NUL, a list element or a link's
/// key of either, in a nested object too) is refused while nothing is written, so that a
/// unit (`atomically`), whose statements have no savepoint each, can catch the error and go
/// on with nothing of the write left behind.
///
/// By stored property name: a scalar as a value of its property's type; a link as null, its
/// target's primary key as given (`linkKey` makes the key), or a nested object (`.object`)
/// whose values are checked alike; a list as the list of its elements checked alike. The
/// statements take them as they are.
struct CheckedValues {
    let model: ModelSchema
    var values: [String: Value]
}

/// An insert checked and made ready before anything is sent: the row's parameters in the
/// insert plan's column order, the nested objects to write before it (as a store writes
/// them), and its lists' checked elements.
struct PreparedInsert {
    let plan: PostgresStore.InsertPlan
    var parameters: [String?]
    var written: PostgresStore.WrittenKeys
    /// The nested objects, in the order of the properties holding them.
    var nested: [NestedObject]
    var lists: [(property: PropertySchema, elements: [Value])]

    /// A nested object of the insert, with the place its key fills once it is written.
    struct NestedObject {
        var property: PropertySchema
        var values: CheckedValues
        var place: Place

        enum Place {
            /// The row's parameter at this index.
            case parameter(Int)
            /// An element (position from 0) of the list at this index of `lists`.
            case element(list: Int, position: Int)
        }
    }
}

extension PostgresStore {
    /// `given`, the values an update, an upsert or a nested object sets on `model`, checked
    /// (see `CheckedValues`); in name order, so that the first of several faults is the one named.
    func checked(_ model: ModelSchema, _ given: [String: Value]) throws -> CheckedValues {
        var values: [String: Value] = [:]
        values.reserveCapacity(given.count)
        for (name, value) in given.sorted(by: { $0.key < $1.key }) {
            values[name] = try checkedValue(value, try model.storedProperty(name), of: model)
        }
        return CheckedValues(model: model, values: values)
    }

    /// `value` checked for `property` of `model`.
    private func checkedValue(_ value: Value, _ property: PropertySchema, of model: ModelSchema) throws -> Value {
        switch property.type {
        case .list(let elementType):
            // Null stands for an empty list, as in a store.
            guard case .list(let elements) = value.isNull ? .list([]) : value else {
                throw PostgresError("'\(property.name)' takes a list, not \(value.kindDescription)")
            }
            var checked: [Value] = []
            checked.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let value: Value
                if case .link(let target) = elementType {
                    value = try checkedLink(element, target: target, property: property.name, element: index + 1)
                    // A list of links holds objects: no null among them.
                    if value.isNull { throw StoreError.nullNotAllowed(model: model.name, property: property.name) }
                } else {
                    value = try stored(element, elementType, model: model.name, property: property.name, element: index + 1)
                    if value.isNull, !property.isOptional { throw StoreError.nullNotAllowed(model: model.name, property: property.name) }
                }
                checked.append(value)
            }
            return .list(checked)
        case .link(let target):
            return try checkedLink(value, target: target, property: property.name)
        default:
            let coerced = try stored(value, property.type, model: model.name, property: property.name)
            if coerced.isNull, !property.isOptional { throw StoreError.nullNotAllowed(model: model.name, property: property.name) }
            return coerced
        }
    }

    /// A link's value (or element `element`, from 1, of a list of links) checked: null, its
    /// target's primary key, or a nested object's checked values.
    private func checkedLink(_ value: Value, target: String, property: String, element: Int? = nil) throws -> Value {
        if case .object(let values) = value {
            let targetModel = try model(target)
            let checked = try checked(targetModel, values)
            // One the write will insert (it names no object by a primary key) is checked
            // whole, its defaults too; one it upserts is known to be new only once sent.
            if targetModel.primaryKey.flatMap({ values[$0] }).map({ $0.isNull }) ?? true {
                _ = try preparedInsert(try insertPlan(target), checked.values, checked: true)
            }
            return .object(checked.values)
        }
        // The key is checked, but the value stays as given: a link to no object is named by
        // it, as on a store (`4.0`, not `4`). Made again where it is sent, it cannot fail.
        return try linkKey(value, target: target, property: property, element: element).isNull ? .null : value
    }

    /// An insert of `given` into `model` checked and made ready (see `PreparedInsert`): every
    /// stored property's value, an omitted one's default included; nothing is sent.
    func preparedInsert(_ model: ModelSchema, _ given: [String: Value]) throws -> PreparedInsert {
        try preparedInsert(try insertPlan(model.name), given, checked: false)
    }

    /// An insert of `given` made ready by `plan`; `checked` when `given` is already checked
    /// (a nested object's values, checked with the write holding it), so that only the
    /// omitted properties' defaults remain to check.
    func preparedInsert(_ plan: InsertPlan, _ given: [String: Value], checked: Bool) throws -> PreparedInsert {
        let model = plan.model
        // Names compared in place: a lookup by name would copy each property it returns.
        for name in given.keys where !model.properties.contains(where: { $0.name == name }) {
            throw StoreError.noSuchProperty(model: model.name, property: name)
        }
        for property in plan.computed where given[property] != nil {
            throw StoreError.readOnlyProperty(model: model.name, property: property)
        }
        if let pk = model.primaryKey, given[pk] == nil { throw StoreError.missingPrimaryKey(model: model.name) }
        var prepared = PreparedInsert(plan: plan, parameters: [], written: WrittenKeys(), nested: [], lists: [])
        prepared.parameters.reserveCapacity(plan.columnCount)
        for property in model.properties where property.isStored {
            let given = given[property.name]
            let value = try given.map { checked ? $0 : try checkedValue($0, property, of: model) }
                ?? checkedValue(property.valueWhenOmitted, property, of: model)
            switch property.type {
            case .list(let element):
                guard case .list(let elements) = value else { continue }
                if case .link(let target) = element {
                    for (position, element) in elements.enumerated() {
                        guard case .object(let values) = element else { continue }
                        prepared.nested.append(.init(property: property, values: CheckedValues(model: try self.model(target), values: values),
                                                     place: .element(list: prepared.lists.count, position: position)))
                    }
                }
                prepared.lists.append((property, elements))
            case .link(let target):
                if case .object(let values) = value {
                    prepared.nested.append(.init(property: property, values: CheckedValues(model: try self.model(target), values: values),
                                                 place: .parameter(prepared.parameters.count)))
                    prepared.parameters.append(nil)
                    continue
                }
                let key = try linkKey(value, target: target, property: property.name)
                let text = key.isNull ? nil : try PostgresValues.parameter(key, type: try keyType(target)).0
                if let text { prepared.written.links.append((property.name, target, model.name, property.name, text, value)) }
                prepared.parameters.append(text)
            default:
                if property.name == model.primaryKey { prepared.written.primaryKey = value }
                prepared.parameters.append(value.isNull ? nil : try PostgresValues.parameter(value, type: property.type).0)
            }
        }
        return prepared
    }
}
