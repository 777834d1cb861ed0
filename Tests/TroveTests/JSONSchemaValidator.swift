import Foundation
@testable import Trove

/// A JSON Schema (draft 2020-12) validator for exactly the keywords `Schemas/trove-schema.json`
/// uses. Any other keyword is reported as an error, so the schema cannot silently rely on
/// one this validator ignores.
struct JSONSchemaValidator {
    let root: JSONValue

    static let annotations: Set<String> = ["$schema", "$id", "$defs", "title", "description", "default", "examples"]

    /// The instance paths and reasons of every violation; empty when `instance` is valid.
    func errors(in instance: JSONValue) -> [String] {
        var errors: [String] = []
        validate(instance, against: root, at: "$", errors: &errors)
        return errors
    }

    private func validate(_ instance: JSONValue, against schema: JSONValue, at path: String, errors: inout [String]) {
        if case .bool(let accept) = schema {
            if !accept { errors.append("\(path): no value is allowed here") }
            return
        }
        guard case .object(let keywords) = schema else {
            errors.append("\(path): schema is not an object")
            return
        }
        for (keyword, value) in keywords.pairs {
            switch keyword {
            case _ where Self.annotations.contains(keyword):
                break
            case "$ref":
                guard let target = resolve(value.stringValue ?? "") else {
                    errors.append("\(path): unresolvable $ref \(value.jsonText)")
                    break
                }
                validate(instance, against: target, at: path, errors: &errors)
            case "type":
                let names = value.arrayValue?.compactMap(\.stringValue) ?? [value.stringValue ?? ""]
                if !names.contains(where: { Self.has(instance, type: $0) }) {
                    errors.append("\(path): expected type \(names.joined(separator: " or ")), found \(instance.typeDescription)")
                }
            case "properties":
                guard case .object(let object) = instance else { break }
                for (name, subschema) in value.objectValue?.pairs ?? [] {
                    if let member = object[name] { validate(member, against: subschema, at: path + "." + name, errors: &errors) }
                }
            case "patternProperties":
                guard case .object(let object) = instance else { break }
                for (pattern, subschema) in value.objectValue?.pairs ?? [] {
                    for (name, member) in object.pairs where Self.matches(name, pattern) {
                        validate(member, against: subschema, at: path + "." + name, errors: &errors)
                    }
                }
            case "additionalProperties":
                guard case .object(let object) = instance else { break }
                let declared = keywords["properties"]?.objectValue?.keys ?? []
                let patterns = keywords["patternProperties"]?.objectValue?.keys ?? []
                for (name, member) in object.pairs
                where !declared.contains(name) && !patterns.contains(where: { Self.matches(name, $0) }) {
                    validate(member, against: value, at: path + "." + name, errors: &errors)
                }
            case "required":
                guard case .object(let object) = instance else { break }
                for name in value.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                    errors.append("\(path): missing required \"\(name)\"")
                }
            case "pattern":
                if case .string(let s) = instance, !Self.matches(s, value.stringValue ?? "") {
                    errors.append("\(path): \(instance.jsonText) does not match \(value.jsonText)")
                }
            case "enum":
                if !(value.arrayValue ?? []).contains(where: { Self.equal($0, instance) }) {
                    errors.append("\(path): \(instance.jsonText) is not one of the allowed values")
                }
            case "const":
                if !Self.equal(value, instance) { errors.append("\(path): expected \(value.jsonText)") }
            case "anyOf", "oneOf":
                let branches = value.arrayValue ?? []
                let passing = branches.filter { branch in
                    var branchErrors: [String] = []
                    validate(instance, against: branch, at: path, errors: &branchErrors)
                    return branchErrors.isEmpty
                }.count
                if keyword == "anyOf" && passing == 0 { errors.append("\(path): matches none of anyOf") }
                if keyword == "oneOf" && passing != 1 { errors.append("\(path): matches \(passing) of oneOf, not exactly one") }
            case "items":
                for (i, element) in (instance.arrayValue ?? []).enumerated() {
                    validate(element, against: value, at: "\(path)[\(i)]", errors: &errors)
                }
            case "minimum":
                if let n = Self.number(instance), let minimum = Self.number(value), n < minimum {
                    errors.append("\(path): \(instance.jsonText) is less than \(value.jsonText)")
                }
            case "minItems":
                if let array = instance.arrayValue, case .int(let minimum) = value, array.count < minimum {
                    errors.append("\(path): fewer than \(minimum) items")
                }
            default:
                errors.append("\(path): unsupported keyword \(keyword)")
            }
        }
    }

    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/$defs/") else { return nil }
        return root.objectValue?["$defs"]?.objectValue?[String(reference.dropFirst("#/$defs/".count))]
    }

    static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
             ("number", .int), ("number", .double), ("integer", .int): true
        case ("integer", .double(let d)): d.rounded() == d
        default: false
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .double(let d): d
        default: nil
        }
    }

    /// JSON Schema equality: 1 and 1.0 are equal.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = number(a), let y = number(b) { return x == y }
        return a == b
    }

    /// ECMA-262 `pattern` semantics: a search, not a whole-string match.
    static func matches(_ string: String, _ pattern: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        return regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }
}
