#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON form of values (schema-format.md, "Types"): numbers for numeric types (NaN and
/// the infinities, which JSON has not, as the strings `"NaN"`, `"Infinity"` and `"-Infinity"`,
/// as PostgreSQL's `to_json` writes them), ISO 8601 strings for dates, base64 for data, strings
/// for decimals (every digit kept) and UUIDs, links as the target's primary key. Reading goes
/// through ``Coercion``.
extension Value {
    /// The JSON form of a scalar or a list of scalars; a reference is its object key, a nested
    /// object its properties. A NaN or infinite float or double is the string `"NaN"`,
    /// `"Infinity"` or `"-Infinity"`, which a float or double property reads back.
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let v): .int(v)
        // Through the Float's own shortest text, so that 0.1 stays 0.1 and not 0.100000001.
        case .float(let f): f.isFinite ? .double(Double(f.description) ?? Double(f)) : .string(NonFiniteNumber.text(Double(f))!)
        case .double(let d): NonFiniteNumber.text(d).map(JSONValue.string) ?? .double(d)
        case .string(let s): .string(s)
        case .date(let d): .string(ISO8601Timestamp.format(d))
        case .data(let d): .string(d.base64EncodedString())
        case .decimal(let d): .string(d.description)
        case .uuid(let u): .string(u.uuidString)
        case .list(let items): .array(items.map(\.jsonValue))
        case .reference(let r): .int(Int64(bitPattern: r.key))
        case .object(let o): .object(JSONObject(o.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.jsonValue) }))
        }
    }
}

enum ValueJSON {
    /// A JSON value (import, shell) as a value of property `p`: lists as arrays, links as the
    /// target's primary key or as a nested object to upsert.
    static func value(_ json: JSONValue, for p: PropertyLayout) throws -> Value {
        if p.isLinkingObjects { throw StoreError.readOnlyProperty(model: p.model.name, property: p.name) }
        if case .list(let element) = p.type {
            if json == .null { return .list([]) }
            guard case .array(let items) = json else {
                throw StoreError.invalidValue(CoercionError(property: p.name, type: p.type, found: json.typeDescription))
            }
            return .list(try items.enumerated().map { try self.element($1, type: element, p, position: $0 + 1) })
        }
        return try element(json, type: p.type, p)
    }

    /// `json` as a value of `type`: of the property `p`, or of element `position` of its list.
    private static func element(_ json: JSONValue, type: PropertyType, _ p: PropertyLayout, position: Int? = nil) throws -> Value {
        guard case .link = type else {
            do {
                return try Coercion.scalar(.json(json), as: type, for: p.name)
            } catch {
                throw StoreError.invalidValue(position.map(error.inElement) ?? error)
            }
        }
        switch json {
        case .null: return .null
        case .object(let o):
            guard let target = p.target else { return .null }
            var dict: [String: Value] = [:]
            for (k, v) in o.pairs {
                guard let tp = target.byName[k] else { throw StoreError.noSuchProperty(model: target.name, property: k) }
                dict[k] = try value(v, for: tp)
            }
            return .object(dict)
        default:
            guard let target = p.target, let pk = target.primaryKey else {
                throw StoreError.typeMismatch(property: p.name, expected: "a nested object (\(p.target?.name ?? "?") has no primary key)", found: json.typeDescription)
            }
            do {
                return try Coercion.scalar(.json(json), as: pk.type, for: p.name)
            } catch {
                // An element of a list of links is named by its position, as a literal's is.
                if let position { throw StoreError.invalidValue(error.inElement(position)) }
                throw StoreError.typeMismatch(property: p.name, expected: "the primary key of \(target.name) (\(pk.type))", found: json.typeDescription)
            }
        }
    }

    /// The JSON form of a stored value of property `p`: links as the target's primary key.
    static func json(_ v: Value, for p: PropertyLayout, in snapshot: Snapshot) throws -> JSONValue {
        switch v {
        case .list(let items): return .array(try items.map { try json($0, for: p, in: snapshot) })
        case .reference(let r):
            guard let target = p.target else { return .null }
            if let pk = target.primaryKey {
                guard let pkValue = try snapshot.withRecord(target, r.key, { try $0.value(of: pk) }) else { return .null }
                return pkValue.jsonValue
            }
            return .int(Int64(bitPattern: r.key))
        case .object: return .null
        default: return v.jsonValue
        }
    }
}
