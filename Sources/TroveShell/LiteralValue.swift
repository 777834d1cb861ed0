#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// Values written in statements (primary keys of `get`/`update`/`delete`, `set` values),
/// read with the query language's literal syntax and typed by the property they are for:
/// numbers, quoted strings, `true`/`false`, `nil`/`null`, `{...}` lists, `$N` parameters,
/// and also JSON arrays and objects (a list, or a nested object for a link).
enum LiteralValue {
    /// JSON (a list, a nested object) as a value of a property of a model, at an offset of
    /// the statement: as the backend's import reads it.
    typealias JSONTyping = (_ json: JSONValue, _ property: PropertySchema, _ model: String, _ offset: Int) throws -> Value

    /// A primary key of `model`; a bare UUID needs no quotes.
    static func primaryKey(_ key: SourceFragment, of model: ModelSchema, arguments: ParameterValues,
                           in snapshot: Snapshot) throws -> Value {
        try primaryKey(key, of: model, schema: snapshot.schema, arguments: arguments, typed: typing(in: snapshot))
    }

    /// A primary key of `model`, as `primaryKey(_:of:arguments:in:)` reads it on any backend.
    static func primaryKey(_ key: SourceFragment, of model: ModelSchema, schema: Schema, arguments: ParameterValues,
                           typed: JSONTyping) throws -> Value {
        guard let pk = model.primaryKeyProperty else {
            throw StatementError.noPrimaryKey(model.name, at: key.offset)
        }
        let value: Value
        if pk.type == .uuid, UUID(uuidString: key.text) != nil {
            value = try coerced(.text(key.text), as: pk.type, for: pk.name, at: key.offset)
        } else {
            value = try parse(key, for: pk, of: model.name, schema: schema, arguments: arguments, typed: typed)
        }
        if value.isNull { throw StatementError("a primary key cannot be null", at: key.offset) }
        return value
    }

    /// The values of a `set` list, by property name.
    static func assignments(_ assignments: [Assignment], of model: ModelSchema, arguments: ParameterValues,
                            in snapshot: Snapshot) throws -> [String: Value] {
        try Self.assignments(assignments, of: model, schema: snapshot.schema, arguments: arguments, typed: typing(in: snapshot))
    }

    /// The values of a `set` list, as `assignments(_:of:arguments:in:)` reads them on any
    /// backend: the same properties are refused with the same messages everywhere.
    static func assignments(_ assignments: [Assignment], of model: ModelSchema, schema: Schema, arguments: ParameterValues,
                            typed: JSONTyping) throws -> [String: Value] {
        var values: [String: Value] = [:]
        for assignment in assignments {
            let name = assignment.property.text
            guard let property = model[property: name] else {
                throw StatementError("model '\(model.name)' has no property '\(name)'", at: assignment.property.offset)
            }
            if !property.isStored {
                throw StatementError("'\(model.name).\(name)' is computed (linkingObjects) and cannot be set", at: assignment.property.offset)
            }
            if name == model.primaryKey {
                throw StatementError("the primary key '\(name)' cannot be changed", at: assignment.property.offset)
            }
            if values[name] != nil {
                throw StatementError("'\(name)' is set twice", at: assignment.property.offset)
            }
            values[name] = try parse(assignment.value, for: property, of: model.name, schema: schema, arguments: arguments, typed: typed)
        }
        return values
    }

    /// Where in the `set` list a write of its values failed, for an error that names no place:
    /// at the value of `property` when the error names it, else at the first value that
    /// links to `target`, else at the only value, else at the first property set.
    static func offset(ofFailureIn assignments: [Assignment], of model: ModelSchema,
                       property: String? = nil, target: String? = nil) -> Int? {
        if let property, let a = assignments.first(where: { $0.property.text == property }) { return a.value.offset }
        if let target, let a = assignments.first(where: { model[property: $0.property.text]?.objectType == target }) {
            return a.value.offset
        }
        return assignments.count == 1 ? assignments[0].value.offset : assignments.first?.property.offset
    }

    /// Runs the write of a `set` list's values; a store's error about them, which names no
    /// place, stands at the value it concerns (`offset(ofFailureIn:of:property:target:)`).
    static func writing<R>(_ assignments: [Assignment], of model: ModelSchema, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as StoreError {
            let offset: Int?
            switch error {
            case .linkTargetNotFound(let property, _, _), .nullNotAllowed(_, let property), .typeMismatch(let property, _, _):
                offset = Self.offset(ofFailureIn: assignments, of: model, property: property)
            case .missingPrimaryKey(let target), .duplicatePrimaryKey(let target, _):
                offset = Self.offset(ofFailureIn: assignments, of: model, target: target)
            case .noSuchProperty, .invalidValue:
                offset = Self.offset(ofFailureIn: assignments, of: model)
            default:
                throw error
            }
            throw StatementError(error.description, at: offset)
        }
    }

    /// The value of the literal in `fragment` for `property`, parameters resolved: scalars
    /// through ``Coercion``, links as the target's primary key, JSON arrays and objects as
    /// import reads them.
    static func parse(_ fragment: SourceFragment, for property: PropertySchema, of model: String, schema: Schema,
                      arguments: ParameterValues, in snapshot: Snapshot) throws -> Value {
        try parse(fragment, for: property, of: model, schema: schema, arguments: arguments, typed: typing(in: snapshot))
    }

    /// The value of the literal in `fragment` for `property`, as `parse(_:for:of:schema:arguments:in:)`
    /// reads it on any backend: `typed` reads JSON as the backend's import does.
    static func parse(_ fragment: SourceFragment, for property: PropertySchema, of model: String, schema: Schema,
                      arguments: ParameterValues, typed: JSONTyping) throws -> Value {
        let text = fragment.text
        if text.hasPrefix("[") || text.hasPrefix("{") {
            // `{}` is JSON's empty object, but for a list the empty `{...}` list.
            if let json = try? JSONParser().parse(text), !Self.isEmptyObject(json) || !property.type.isList {
                return try typed(json, property, model, fragment.offset)
            }
            if text.hasPrefix("[") {
                do {
                    _ = try JSONParser().parse(text)
                } catch {
                    throw StatementError("invalid JSON: \(error.description)", at: fragment.offset + error.byteOffset)
                }
            }
        }
        let expression: QueryExpression
        do {
            var parser = try QueryParser(text)
            expression = try parser.parseExpression()
            try parser.expectEnd()
        } catch {
            throw StatementError(error, at: fragment.offset + error.location.offset)
        }
        return try value(expression, for: property, of: model, type: property.type, schema: schema, arguments: arguments,
                         base: fragment.offset, typed: typed)
    }

    private static func isEmptyObject(_ json: JSONValue) -> Bool {
        if case .object(let object) = json { return object.count == 0 }
        return false
    }

    private static func value(_ expression: QueryExpression, for property: PropertySchema, of model: String, type: PropertyType, schema: Schema,
                              arguments: ParameterValues, base: Int, typed: JSONTyping, position: Int? = nil) throws -> Value {
        let offset = base + expression.range.start.offset
        if case .list(let element) = type {
            switch expression.kind {
            case .literal(.list(let elements)):
                return .list(try elements.enumerated().map {
                    try value($1, for: property, of: model, type: element, schema: schema, arguments: arguments, base: base, typed: typed,
                              position: $0 + 1)
                })
            case .literal(.null):
                return .null
            case .parameter(let index):
                return try typed(arguments.json(index, for: property, at: offset), property, model, offset)
            default:
                break
            }
        }
        let scalarType: PropertyType
        switch type {
        case .link(let target):
            guard let pk = schema[target]?.primaryKeyProperty else {
                throw StatementError("'\(property.name)' links to \(target), which has no primary key: give the object as JSON", at: offset)
            }
            scalarType = pk.type
        case .list, .linkingObjects:
            throw StatementError("'\(property.name)' is \(property.typeString): give a list such as {1, 2} or a JSON array", at: offset)
        default:
            scalarType = type
        }
        switch expression.kind {
        case .literal(let literal):
            return try coerced(.literal(literal), as: scalarType, for: property.name, at: offset, element: position)
        case .parameter(let index):
            return try coerced(.text(arguments.text(index, at: offset)), as: scalarType, for: property.name, at: offset, parameter: index,
                               element: position)
        case .keyPath(let path):
            throw StatementError("expected a value, found the name '\(path)' (quote a string: '\(path)')", at: offset)
        case .aggregate, .subqueryCount:
            throw StatementError("expected a value: a number, a quoted string, true, false, nil or $N", at: offset)
        }
    }

    /// Argument `$index` (`text`) as a value of a scalar `type`, for `property`, with the
    /// error a statement that names it gives.
    static func argument(_ text: String, index: Int, as type: PropertyType, for property: String, at offset: Int) throws -> Value {
        try coerced(.text(text), as: type, for: property, at: offset, parameter: index)
    }

    private static func coerced(_ input: CoercionInput, as type: PropertyType, for property: String, at offset: Int,
                                parameter: Int? = nil, element: Int? = nil) throws -> Value {
        do {
            return try Coercion.scalar(input, as: type, for: property)
        } catch {
            let error = element.map(error.inElement) ?? error
            throw StatementError(parameter.map { "$\($0): \(error)" } ?? error.description, at: offset)
        }
    }

    /// Converts JSON to the property's type, as import does (ISO 8601 dates, base64 data,
    /// links by primary key or as nested objects).
    /// JSON read as a store's import reads it, in `snapshot`.
    private static func typing(in snapshot: Snapshot) -> JSONTyping {
        { json, property, model, offset in try typed(json, for: property, of: model, at: offset, in: snapshot) }
    }

    static func typed(_ json: JSONValue, for property: PropertySchema, of model: String, at offset: Int, in snapshot: Snapshot) throws -> Value {
        do {
            return try snapshot.values(fromJSON: JSONObject([(property.name, json)]), model: model)[property.name] ?? .null
        } catch let error as StoreError {
            throw StatementError(error.description, at: offset)
        }
    }
}
