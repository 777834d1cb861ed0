import Trove

/// A stored object that does not decode as the Swift model read: the store's schema and the
/// type disagree (a property optional in the store and not in Swift, or of another type),
/// as when a store is opened with a schema file or an older set of models.
///
/// ```swift
/// do { _ = try snapshot.objects(Person.self).values }
/// catch let error as ModelDecodingError { print(error) }   // Person.age holds "x" (a string), which does not decode as Int: ...
/// ```
public struct ModelDecodingError: DescribedError, Sendable {
    /// The model of the object read.
    public let model: String
    /// The property that does not decode, through links and list positions
    /// (`bestFriend.age`, `tags[2]`); empty when the object as a whole does not.
    public let property: String
    /// The stored value, as the query language writes it, or its kind when it was not read.
    public let storedValue: String
    /// The Swift type the model declares there.
    public let expectedType: String
    /// The decoder's own account.
    public let reason: String

    public var description: String {
        let place = property.isEmpty ? model : "\(model).\(property)"
        return "\(place) holds \(storedValue), which does not decode as \(expectedType): \(reason)"
    }

    /// The error for `error`, thrown decoding an object of `model`; `object` reads the stored
    /// value of the property it names, and `declaredType` gives the Swift type of a property.
    init(_ error: any Error, model: String, object: DynamicObject?, declaredType: (String) -> String?) {
        self.model = model
        guard let decoding = error as? DecodingError else {
            property = ""
            storedValue = "an object"
            expectedType = model
            reason = "\(error)"
            return
        }
        let context: DecodingError.Context
        var expected = "its Swift type"
        switch decoding {
        case .typeMismatch(let type, let c): context = c; expected = "\(type)"
        case .valueNotFound(let type, let c): context = c; expected = "\(type)"
        case .keyNotFound(_, let c): context = c
        case .dataCorrupted(let c): context = c
        @unknown default: context = .init(codingPath: [], debugDescription: "\(error)")
        }
        var path = ""
        for key in context.codingPath {
            if let index = key.intValue { path += "[\(index)]" } else { path += (path.isEmpty ? "" : ".") + key.stringValue }
        }
        if case .keyNotFound(let key, _) = decoding {
            path += (path.isEmpty ? "" : ".") + key.stringValue
        }
        property = path
        expectedType = declaredType(path) ?? expected
        reason = context.debugDescription
        // The stored value itself when the property is one of the object's own.
        if let object, context.codingPath.count == 1, let name = context.codingPath.first?.stringValue,
           let value = try? object.value(name) {
            storedValue = value == .null ? "null" : "\(value) (\(value.kindDescription))"
        } else if case .keyNotFound = decoding {
            storedValue = "no value"
        } else {
            storedValue = "a value"
        }
    }
}

extension ModelDecodingError {
    /// The error for `error`, thrown decoding `value`, the column `item` (a SELECT item as
    /// the query language writes it) of a row of `model`, as `expectedType`.
    init(_ error: any Error, model: String, item: String, value: Value, expectedType: Any.Type) {
        self.model = model
        var path = item
        var reason = "\(error)"
        if let decoding = error as? DecodingError {
            let context: DecodingError.Context? = switch decoding {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): c
            @unknown default: nil
            }
            if let context {
                reason = context.debugDescription
                for key in context.codingPath {
                    if let index = key.intValue { path += "[\(index)]" } else { path += "." + key.stringValue }
                }
            }
        }
        property = path
        storedValue = value == .null ? "null" : "\(value) (\(value.kindDescription))"
        self.expectedType = "\(expectedType)"
        self.reason = reason
    }
}

extension PersistentModel {
    /// The value stored as `object`, or a ``ModelDecodingError`` naming what does not fit.
    static func decoded(from object: DynamicObject) throws -> Self {
        if let value = try read(object) { return value }
        do {
            return try ObjectDecoder.decode(Self.self, from: object)
        } catch let error as StoreError {
            // The store's own errors (results read after their snapshot ended, a read that
            // failed) are not disagreements of schema and type: they pass through as they are.
            throw error
        } catch {
            throw ModelDecodingError(error, model: modelName, object: object) { name in
                modelProperties.first { $0.name == name }.map { "\(type(of: $0.keyPath).valueType)" }
            }
        }
    }
}
