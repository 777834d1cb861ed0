#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The models of a store: a validated schema file (see `schema-format.md`).
///
/// A `Schema` is valid by construction: every initializer checks the whole schema and
/// throws a ``SchemaError`` naming the file, the JSON path and the problem.
///
/// ```swift
/// let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/People.json"))
/// for property in schema["Person"]!.properties { print(property.name, property.typeString) }
/// ```
public struct Schema: Sendable, Equatable {
    /// A non-negative version; raising it allows changes that are not additive.
    public let schemaVersion: Int
    /// The models, in declared order.
    public let models: [ModelSchema]

    /// A schema built in code.
    public init(schemaVersion: Int = 0, models: [ModelSchema]) throws(SchemaError) {
        try SchemaValidator(fileName: nil).validate(schemaVersion: schemaVersion, models: models)
        self.schemaVersion = schemaVersion
        self.models = models
    }

    /// A schema from its JSON document; `fileName` only labels errors.
    public init(json: JSONValue, fileName: String? = nil) throws(SchemaError) {
        let (version, models) = try SchemaDecoder(fileName: fileName).decode(json)
        try SchemaValidator(fileName: fileName).validate(schemaVersion: version, models: models)
        self.schemaVersion = version
        self.models = models
    }

    /// A schema from the UTF-8 JSON text of a schema file; `fileName` only labels errors.
    public init(jsonData: some ContiguousBytes, fileName: String? = nil) throws(SchemaError) {
        // Duplicate keys are kept so that the decoder can name them with their JSON path.
        let parser = JSONParser(allowsDuplicateKeys: true)
        let parsed = jsonData.withUnsafeBytes { bytes in Result { () throws(JSONError) in try parser.parse(bytes) } }
        switch parsed {
        case .success(let json):
            try self.init(json: json, fileName: fileName)
        case .failure(let error):
            throw SchemaError(.invalidJSON, fileName: fileName, path: "", message: "invalid JSON: \(error)")
        }
    }

    /// A schema from a file; errors name the file as the URL gives it.
    public init(contentsOf url: URL) throws(SchemaError) {
        let name = url.isFileURL ? url.relativePath : url.absoluteString
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SchemaError(.unreadableFile, fileName: name, path: "", message: "cannot read the schema file: \(Schema.reason(error))")
        }
        try self.init(jsonData: data, fileName: name)
    }

    /// The system's words for why a file could not be read (`No such file or directory`).
    private static func reason(_ error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return String(describing: error) }
        if let posix = cocoa.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "file error \(cocoa.code.rawValue)"
    }

    /// The model named `name`.
    public subscript(name: String) -> ModelSchema? {
        models.first { $0.name == name }
    }
}
