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
    /// A primary key of `model`; a bare UUID needs no quotes.
    static func primaryKey(_ key: SourceFragment, of model: ModelSchema, arguments: ParameterValues,
                           in snapshot: Snapshot) throws -> Value {
        guard let pk = model.primaryKeyProperty else {
            throw StatementError("model '\(model.name)' has no primary key: use 'where' to choose objects", at: key.offset)
        }
        let json: JSONValue
        if pk.type == .uuid, UUID(uuidString: key.text) != nil {
            json = .string(key.text)
        } else {
            json = try parse(key, for: pk, schema: snapshot.schema, arguments: arguments)
        }
        if json == .null { throw StatementError("a primary key cannot be null", at: key.offset) }
        return try typed(json, for: pk, of: model, at: key.offset, in: snapshot)
    }

    /// The values of a `set` list, by property name.
    static func assignments(_ assignments: [Assignment], of model: ModelSchema, arguments: ParameterValues,
                            in snapshot: Snapshot) throws -> [String: Value] {
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
            let json = try parse(assignment.value, for: property, schema: snapshot.schema, arguments: arguments)
            values[name] = try typed(json, for: property, of: model, at: assignment.value.offset, in: snapshot)
        }
        return values
    }

    /// The JSON form of the literal in `fragment`, parameters resolved for `property`.
    static func parse(_ fragment: SourceFragment, for property: PropertySchema, schema: Schema,
                      arguments: ParameterValues) throws -> JSONValue {
        let text = fragment.text
        if text.hasPrefix("[") || text.hasPrefix("{") {
            if let json = try? JSONParser().parse(text) { return json }
            if text.hasPrefix("[") {
                do {
                    return try JSONParser().parse(text)
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
            throw StatementError(error.message, at: fragment.offset + error.location.offset)
        }
        return try json(expression, for: property, schema: schema, arguments: arguments, base: fragment.offset)
    }

    private static func json(_ expression: QueryExpression, for property: PropertySchema, schema: Schema,
                             arguments: ParameterValues, base: Int) throws -> JSONValue {
        let offset = base + expression.range.start.offset
        switch expression.kind {
        case .literal(let literal):
            switch literal {
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            case .string(let s): return .string(s)
            case .bool(let b): return .bool(b)
            case .null: return .null
            case .list(let elements):
                var element = property
                if case .list(let type) = property.type { element.type = type }
                return .array(try elements.map { try json($0, for: element, schema: schema, arguments: arguments, base: base) })
            }
        case .parameter(let index):
            return try arguments.json(index, for: property.type, property: property.name, schema: schema, at: offset)
        case .keyPath(let path):
            throw StatementError("expected a value, found the name '\(path)' (quote a string: '\(path)')", at: offset)
        case .aggregate, .subqueryCount:
            throw StatementError("expected a value: a number, a quoted string, true, false, nil or $N", at: offset)
        }
    }

    /// Converts JSON to the property's type, as import does (ISO 8601 dates, base64 data,
    /// links by primary key or as nested objects).
    static func typed(_ json: JSONValue, for property: PropertySchema, of model: ModelSchema, at offset: Int,
                      in snapshot: Snapshot) throws -> Value {
        do {
            return try snapshot.values(fromJSON: JSONObject([(property.name, json)]), model: model.name)[property.name] ?? .null
        } catch let error as StoreError {
            throw StatementError(error.description, at: offset)
        }
    }
}
