#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a value against a property's type, widening numbers where no precision is lost
/// (an integer literal for a double, say) and refusing everything else with a clear error.
enum Coercion {
    static func scalar(_ v: Value, for p: PropertyLayout) throws -> Value {
        try scalar(v, type: p.elementType, optional: p.isOptional, property: p)
    }

    static func scalar(_ v: Value, type: PropertyType, optional: Bool, property p: PropertyLayout) throws -> Value {
        func mismatch() -> StoreError { .typeMismatch(property: p.name, expected: type.description, found: v.kindDescription) }
        switch (type, v) {
        case (_, .null):
            guard optional else { throw StoreError.nullNotAllowed(model: p.model.name, property: p.name) }
            return .null
        case (.bool, .bool): return v
        case (_, .int(let i)) where type.isInteger:
            guard type.integerRange!.contains(i) else {
                throw StoreError.typeMismatch(property: p.name, expected: "\(type) (\(type.integerRange!))", found: "\(i)")
            }
            return v
        case (_, .double(let d)) where type.isInteger:
            guard d.rounded() == d, let i = Int64(exactly: d), type.integerRange!.contains(i) else { throw mismatch() }
            return .int(i)
        case (.float, .float): return v
        case (.float, .int(let i)): return .float(Float(i))
        case (.float, .double(let d)): return .float(Float(d))
        case (.double, .double): return v
        case (.double, .int(let i)): return .double(Double(i))
        case (.double, .float(let f)): return .double(Double(f))
        case (.string, .string): return v
        case (.date, .date): return v
        case (.date, .string(let s)):
            guard let d = ISO8601Timestamp.parse(s) else { throw mismatch() }
            return .date(d)
        case (.data, .data): return v
        case (.decimal, .decimal): return v
        case (.decimal, .int(let i)): return .decimal(Decimal(i))
        case (.decimal, .double(let d)): return .decimal(Decimal(d))
        case (.decimal, .string(let s)):
            guard let d = PropertyValue.parseDecimal(s) else { throw mismatch() }
            return .decimal(d)
        case (.uuid, .uuid): return v
        case (.uuid, .string(let s)):
            guard let u = UUID(uuidString: s) else { throw mismatch() }
            return .uuid(u)
        default:
            throw mismatch()
        }
    }

    /// A JSON value (import, shell) as a value of property `p`.
    static func fromJSON(_ json: JSONValue, for p: PropertyLayout) throws -> Value {
        if p.isLinkingObjects { throw StoreError.readOnlyProperty(model: p.model.name, property: p.name) }
        if case .list(let element) = p.type {
            if json == .null { return .list([]) }
            guard case .array(let items) = json else {
                throw StoreError.typeMismatch(property: p.name, expected: "a list", found: json.typeDescription)
            }
            return .list(try items.map { try element1(fromJSON: $0, type: element, p) })
        }
        return try element1(fromJSON: json, type: p.type, p)
    }

    private static func element1(fromJSON json: JSONValue, type: PropertyType, _ p: PropertyLayout) throws -> Value {
        if case .link = type {
            switch json {
            case .null: return .null
            case .object(let o):
                guard let target = p.target else { return .null }
                var dict: [String: Value] = [:]
                for (k, v) in o.pairs {
                    guard let tp = target.byName[k] else { throw StoreError.noSuchProperty(model: target.name, property: k) }
                    dict[k] = try fromJSON(v, for: tp)
                }
                return .object(dict)
            default:
                guard let target = p.target, let pk = target.primaryKey else {
                    throw StoreError.typeMismatch(property: p.name, expected: "a nested object (\(p.target?.name ?? "?") has no primary key)", found: json.typeDescription)
                }
                do {
                    return Value(try PropertyValue(json: json, as: pk.type))
                } catch {
                    throw StoreError.typeMismatch(property: p.name, expected: "the primary key of \(target.name) (\(pk.type))", found: json.typeDescription)
                }
            }
        }
        do {
            return Value(try PropertyValue(json: json, as: type))
        } catch {
            throw StoreError.typeMismatch(property: p.name, expected: type.description, found: "\(json.typeDescription) (\(error.description))")
        }
    }

    /// The JSON form of a stored value: links as the target's primary key.
    static func toJSON(_ v: Value, property p: PropertyLayout, snapshot: Snapshot) throws -> JSONValue {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let f): return PropertyValue.float(f).jsonValue
        case .double(let d): return d.isFinite ? .double(d) : .null
        case .string(let s): return .string(s)
        case .date(let d): return PropertyValue.date(d).jsonValue
        case .data(let d): return .string(d.base64EncodedString())
        case .decimal(let d): return .string(d.description)
        case .uuid(let u): return .string(u.uuidString)
        case .list(let items): return .array(try items.map { try toJSON($0, property: p, snapshot: snapshot) })
        case .reference(let r):
            guard let target = p.target else { return .null }
            if let pk = target.primaryKey {
                guard let pkValue = try snapshot.withRecord(target, r.key, { try $0.value(of: pk) }) else { return .null }
                return try toJSON(pkValue, property: pk, snapshot: snapshot)
            }
            return .int(Int64(bitPattern: r.key))
        case .object: return .null
        }
    }
}
