/// Why a schema was refused: the file, the JSON path and what is wrong.
///
/// ```
/// People.json: models[1].properties.owner: unknown type 'Persn'; did you mean 'Person'?
/// ```
public struct SchemaError: DescribedError, Sendable, Equatable {
    /// The class of problem, for programs; people read ``message``.
    public enum Kind: Sendable, Equatable {
        /// The file cannot be read.
        case unreadableFile
        /// The file is not valid JSON; ``message`` has the line and column.
        case invalidJSON
        /// A JSON value of the wrong kind, a missing key or an unknown key.
        case invalidStructure
        case invalidSchemaVersion
        case invalidModelName
        case invalidPropertyName
        case duplicateModel
        case duplicateProperty
        case emptyModel
        /// A type that is neither built in nor a model of the schema.
        case unknownType
        /// A type written wrongly or not supported (nested lists, nullable lists, ...).
        case invalidType
        case invalidOptionality
        case invalidPrimaryKey
        case invalidIndex
        case invalidDefault
        case invalidLinkingObjects
        case invalidRename
    }

    public var kind: Kind
    /// The schema file's name, when the schema came from a file.
    public var fileName: String?
    /// Where in the document: `models[1].properties.owner`; empty for the whole document.
    public var path: String
    public var message: String

    public init(_ kind: Kind, fileName: String?, path: String, message: String) {
        self.kind = kind
        self.fileName = fileName
        self.path = path
        self.message = message
    }

    public var description: String {
        var s = ""
        if let fileName { s += fileName + ": " }
        if !path.isEmpty { s += path + ": " }
        return s + message
    }
}
